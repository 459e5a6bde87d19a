/**
 * Load on the real `serve` path against the floor, in one run.
 *
 * Three kinds of process: the fakes (bench/load-fakes.ts: three sub-agents
 * and an OpenAI-compatible model, zero latency), Switchboard started through
 * its CLI (`serve`, SQLite; with `--postgres` also on PostgreSQL + Redis; with
 * `--workers N` also `serve --workers N` on PostgreSQL + Redis), and
 * the floor (bench/floor-server.ts: plain `node:http` doing the same agent and
 * model calls and writing the same SSE events at the same sizes). This
 * process only sends turns (the three-intent travel turn) and reads the
 * servers' CPU time from /proc, so every "CPU ms/turn" is the server's alone.
 *
 * Load shapes, each run on the floor and on Switchboard one after the other:
 *   closed loop: 1 session, 20 sessions (50 in the full run), each sending its
 *   next turn when the last one ended; open loop: 50 and 100 turns/s
 *   whatever the answers' pace (latency counted from when a turn was due).
 * Offline and LLM mode (2 model calls per turn on the floor; Switchboard makes
 * what it makes). Every figure is printed beside the floor's, as a ratio,
 * with the target. The load average is printed with every table: the machine
 * is shared, so only same-run ratios compare.
 *
 * Run: `npx tsx bench/load.ts [--quick] [--postgres] [--workers N] [--only offline|llm] [--shapes closed,open 100] [--baseline DIR] [--built]`
 * (`--built`: also the build of this checkout, `node dist/src/cli/main.js serve` after `npm run build`, beside the
 * sources run through tsx, on SQLite);
 * (`--baseline DIR`: another checkout, e.g. `git archive <commit> | tar -x -C DIR` with its node_modules, run beside
 * this one on SQLite, and with `--postgres` on PostgreSQL + Redis too, so a change's before and after are measured in the same run).
 * `bench/run-all.ts` imports `main()`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { sampleRegistry } from '../test/support/switchboard-harness.js';
import { startNodeProcess, type BenchProcess } from './support/processes.js';
import { sendTurn, type TurnTiming } from './support/sse-client.js';
import { TRAVEL_TURN } from './travel-turn.js';
import { createScratchDatabase } from './support/scratch-database.js';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Targets of the hot path (ratios to the floor measured in the same run, or absolute). */
export const TARGETS = {
  /** CPU per turn to the floor's: 8× at one session (last round), 12× at 20 sessions (issue 34). */
  cpuRatio: { 'closed 1 session': 8, 'closed 20 sessions': 12 },
  turnsPerSecondRatio20: 0.12,
  firstByteP99Ms: 5,
  /** First byte p99 at 20 sessions on SQLite (issue 34). */
  firstByteP99At20Ms: 20,
  eventLoopP99Ms: 20,
  open100: { p50Ms: 20, p99Ms: 80 },
} as const;

type Shape = { kind: 'closed'; sessions: number; turns?: number; seconds?: number } | { kind: 'open'; rate: number; seconds: number };

export interface LoadFigures {
  server: string;
  /** `offline` or `llm` (set when the mode's table is printed). */
  mode?: string;
  shape: string;
  turns: number;
  errors: number;
  errorSample?: string;
  turnsPerSecond: number;
  firstByte: { p50: number; p99: number; p999: number };
  done: { p50: number; p99: number; p999: number };
  cpuMsPerTurn: number;
  eventLoopP99Ms: number | undefined;
  loadAverage: number;
}

interface Server {
  name: string;
  url: string;
  process: BenchProcess;
  /** Event-loop delay p99 (ms) since the last call. */
  eventLoopP99(): Promise<number | undefined>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

function shapeName(shape: Shape): string {
  return shape.kind === 'closed' ? `closed ${shape.sessions} session${shape.sessions > 1 ? 's' : ''}` : `open ${shape.rate}/s`;
}

/** Runs one load shape on one server and measures it. */
async function runShape(server: Server, shape: Shape, runId: string): Promise<LoadFigures> {
  const timings: TurnTiming[] = [];
  let sessionSerial = 0;
  // A session carries 5 turns, then the client starts another (history stays bounded, later turns are measured too).
  const newSession = () => `load-${runId}-${server.name.replace(/\W+/g, '')}-${sessionSerial++}`;
  await server.eventLoopP99();
  const cpuBefore = server.process.cpuMs();
  const started = performance.now();
  if (shape.kind === 'closed') {
    const deadline = shape.seconds ? started + shape.seconds * 1000 : Number.POSITIVE_INFINITY;
    const perSession = shape.turns ?? Number.POSITIVE_INFINITY;
    await Promise.all(
      Array.from({ length: shape.sessions }, async (_, index) => {
        let session = newSession();
        for (let turn = 0; turn < perSession && performance.now() < deadline; turn++) {
          if (turn > 0 && turn % 5 === 0) session = newSession();
          timings.push(await sendTurn(server.url, { query: TRAVEL_TURN.query, user_id: `load-u${index}`, session_id: session }, performance.now()));
        }
      }),
    );
  } else {
    const total = Math.round(shape.rate * shape.seconds);
    const pending: Promise<void>[] = [];
    for (let index = 0; index < total; index++) {
      const due = started + (index * 1000) / shape.rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      pending.push(sendTurn(server.url, { query: TRAVEL_TURN.query, user_id: `load-o${index % 50}`, session_id: newSession() }, due).then((timing) => void timings.push(timing)));
    }
    await Promise.all(pending);
  }
  const elapsedMs = performance.now() - started;
  const cpuMs = server.process.cpuMs() - cpuBefore;
  const eventLoopP99Ms = await server.eventLoopP99();
  const ok = timings.filter((timing) => timing.outcome === 'completed');
  const firstBytes = ok.map((timing) => timing.firstByteMs).sort((a, b) => a - b);
  const dones = ok.map((timing) => timing.doneMs).sort((a, b) => a - b);
  const failed = timings.filter((timing) => timing.outcome !== 'completed');
  return {
    server: server.name,
    shape: shapeName(shape),
    turns: timings.length,
    errors: failed.length,
    ...(failed.length > 0 ? { errorSample: failed[0]!.outcome } : {}),
    turnsPerSecond: round((timings.length / elapsedMs) * 1000),
    firstByte: { p50: round(percentile(firstBytes, 0.5)), p99: round(percentile(firstBytes, 0.99)), p999: round(percentile(firstBytes, 0.999)) },
    done: { p50: round(percentile(dones, 0.5)), p99: round(percentile(dones, 0.99)), p999: round(percentile(dones, 0.999)) },
    cpuMsPerTurn: round(cpuMs / Math.max(1, timings.length), 2),
    eventLoopP99Ms,
    loadAverage: round(loadavg()[0]!, 2),
  };
}

async function getText(url: string): Promise<string> {
  const response = await fetch(url);
  return response.text();
}

async function startSwitchboard(name: string, configPath: string, env: Record<string, string | undefined>, workers?: number, checkout = '.', built = false): Promise<Server> {
  const args = ['serve', '--config', configPath, '--port', '0', '--host', '127.0.0.1', ...(workers ? ['--workers', String(workers)] : [])];
  // BENCH_SERVER_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to the Switchboard process only.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = await startNodeProcess(join(checkout, built ? 'dist/src/cli/main.js' : 'src/cli/main.ts'), args, /Switchboard listening on (http:\/\/\S+)/, { LOG_LEVEL: 'info', ...env }, 180_000, nodeArgs);
  const url = /Switchboard listening on (http:\/\/\S+)/.exec(child.readyLine)![1]!;
  return {
    name,
    url,
    process: child,
    async eventLoopP99() {
      // prom-client's collector reports the delay since its last scrape (and resets it); with several workers, the worst.
      const text = await getText(`${url}/metrics`).catch(() => '');
      const values = [...text.matchAll(/^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? (\S+)$/gm)].map((match) => Number(match[1]) * 1000);
      return values.length > 0 ? round(Math.max(...values), 1) : undefined;
    },
  };
}

async function startFloor(fakesJson: string, shapePath: string, llm: boolean): Promise<Server> {
  const child = await startNodeProcess('bench/floor-server.ts', ['--fakes', fakesJson, '--shape', shapePath, ...(llm ? ['--llm'] : [])], /^listening (http:\/\/\S+)/);
  const url = /^listening (http:\/\/\S+)/.exec(child.readyLine)![1]!;
  return {
    name: 'floor',
    url,
    process: child,
    async eventLoopP99() {
      const text = await getText(`${url}/stats`).catch((error: unknown) => {
        throw new Error(`the floor server is gone (${String(error)}); its last output:\n${child.recentOutput()}`);
      });
      const stats = JSON.parse(text) as { p99: number };
      return round(stats.p99, 1);
    },
  };
}

/** The SSE events of one real Switchboard turn: stage and serialised size of each, for the floor to copy. */
async function captureShape(server: Server, path: string): Promise<number> {
  const timing = await sendTurn(server.url, { query: TRAVEL_TURN.query, user_id: 'shape', session_id: `shape-${randomUUID().slice(0, 8)}` }, performance.now(), true);
  if (timing.outcome !== 'completed') throw new Error(`the travel turn did not complete on ${server.name}: ${timing.outcome}`);
  const events = timing
    .text!.split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => ({ stage: (JSON.parse(line.slice(6)) as { metadata: { stage: string } }).metadata.stage, bytes: line.length - 6 }));
  writeFileSync(path, JSON.stringify(events));
  return events.length;
}

export interface LoadOptions {
  quick?: boolean;
  postgres?: boolean;
  /** Also run Switchboard with `--workers N` (open loop and the 20-session max). */
  workers?: number;
  modes?: ('offline' | 'llm')[];
  /** Only the load shapes whose name contains one of these (e.g. `closed`, `open 100`). */
  shapes?: string[];
  /** Another checkout of Switchboard (e.g. an earlier commit) run beside this one on SQLite: before/after in one run. */
  baseline?: string;
  /** Also run this checkout's build (`dist/`, from `npm run build`) beside the sources, on SQLite. */
  built?: boolean;
}

export interface LoadResult {
  rows: LoadFigures[];
  pass: boolean;
}

function shapesFor(quick: boolean): Shape[] {
  return quick
    ? [
        { kind: 'closed', sessions: 1, turns: 60 },
        { kind: 'closed', sessions: 20, seconds: 4 },
        { kind: 'open', rate: 50, seconds: 4 },
        { kind: 'open', rate: 100, seconds: 4 },
      ]
    : [
        { kind: 'closed', sessions: 1, turns: 300 },
        { kind: 'closed', sessions: 20, seconds: 10 },
        { kind: 'closed', sessions: 50, seconds: 10 },
        { kind: 'open', rate: 50, seconds: 10 },
        { kind: 'open', rate: 100, seconds: 10 },
      ];
}

function printTable(mode: string, rows: LoadFigures[]): void {
  const floorOf = (row: LoadFigures) => rows.find((other) => other.server === 'floor' && other.shape === row.shape);
  console.log(`\nLoad, ${mode}: the three-intent travel turn, zero-latency fakes in another process (load average per row)`);
  const header = ['server', 'shape', 'turns', 'err', 'turns/s', '×floor', 'fb p50', 'fb p99', 'fb p99.9', 'done p50', 'done p99', 'done p99.9', 'CPU ms/turn', '×floor', 'loop p99', 'load'];
  const lines = rows.map((row) => {
    const floor = floorOf(row);
    const ratio = (value: number, base: number | undefined) => (base && row.server !== 'floor' ? `${round(value / base, 2)}×` : '');
    return [
      row.server,
      row.shape,
      String(row.turns),
      String(row.errors),
      String(row.turnsPerSecond),
      ratio(row.turnsPerSecond, floor?.turnsPerSecond),
      String(row.firstByte.p50),
      String(row.firstByte.p99),
      String(row.firstByte.p999),
      String(row.done.p50),
      String(row.done.p99),
      String(row.done.p999),
      String(row.cpuMsPerTurn),
      ratio(row.cpuMsPerTurn, floor?.cpuMsPerTurn),
      row.eventLoopP99Ms === undefined ? '-' : String(row.eventLoopP99Ms),
      String(row.loadAverage),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column]!.length)));
  const format = (cells: string[]) => cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  console.log(format(header));
  for (const line of lines) console.log(format(line));
  for (const row of rows) if (row.errors > 0) console.log(`${row.server}, ${row.shape}: ${row.errors} failed turns, e.g. ${row.errorSample}`);
}

interface TargetCheck {
  target: string;
  figure: string;
  met: boolean;
}

function checkTargets(mode: string, rows: LoadFigures[], workers: number | undefined): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const floor = (shape: string) => rows.find((row) => row.server === 'floor' && row.shape === shape);
  const board = (shape: string) => rows.find((row) => row.server === 'switchboard/sqlite' && row.shape === shape);
  for (const shape of ['closed 1 session', 'closed 20 sessions'] as const) {
    const base = floor(shape);
    const row = board(shape);
    if (!base || !row) continue;
    const ratio = row.cpuMsPerTurn / base.cpuMsPerTurn;
    checks.push({ target: `${mode} CPU/turn, ${shape} ≤ ${TARGETS.cpuRatio[shape]}× floor`, figure: `${row.cpuMsPerTurn} ms = ${round(ratio, 1)}× (floor ${base.cpuMsPerTurn} ms)`, met: ratio <= TARGETS.cpuRatio[shape] });
  }
  const base20 = floor('closed 20 sessions');
  const row20 = board('closed 20 sessions');
  if (base20 && row20) {
    const ratio = row20.turnsPerSecond / base20.turnsPerSecond;
    checks.push({ target: `${mode} turns/s at 20 sessions ≥ ${TARGETS.turnsPerSecondRatio20}× floor`, figure: `${row20.turnsPerSecond} = ${round(ratio, 3)}× (floor ${base20.turnsPerSecond})`, met: ratio >= TARGETS.turnsPerSecondRatio20 });
  }
  const one = board('closed 1 session');
  if (one) checks.push({ target: `${mode} first byte p99 at 1 session ≤ ${TARGETS.firstByteP99Ms} ms`, figure: `${one.firstByte.p99} ms`, met: one.firstByte.p99 <= TARGETS.firstByteP99Ms });
  const fb20 = { target: `${mode} first byte p99 at 20 sessions ≤ ${TARGETS.firstByteP99At20Ms} ms (SQLite)`, figure: `${row20?.firstByte.p99} ms (floor ${base20?.firstByte.p99 ?? '-'} ms)` };
  if (row20) checks.push({ ...fb20, met: row20.firstByte.p99 <= TARGETS.firstByteP99At20Ms });
  const loops = rows.filter((row) => row.server.startsWith('switchboard') && row.eventLoopP99Ms !== undefined);
  if (loops.length > 0) {
    const worst = Math.max(...loops.map((row) => row.eventLoopP99Ms!));
    checks.push({ target: `${mode} event-loop delay p99 ≤ ${TARGETS.eventLoopP99Ms} ms (worst row)`, figure: `${worst} ms`, met: worst <= TARGETS.eventLoopP99Ms });
  }
  const open = rows.find((row) => row.server === (workers ? `switchboard/pg+redis ×${workers}` : 'switchboard/sqlite') && row.shape === 'open 100/s');
  if (open) {
    checks.push({
      target: `${mode} open 100/s${workers ? ` with ${workers} workers` : ''}: done p50 ≤ ${TARGETS.open100.p50Ms} ms, p99 ≤ ${TARGETS.open100.p99Ms} ms, no errors`,
      figure: `p50 ${open.done.p50} ms, p99 ${open.done.p99} ms, ${open.errors} errors`,
      met: open.done.p50 <= TARGETS.open100.p50Ms && open.done.p99 <= TARGETS.open100.p99Ms && open.errors === 0,
    });
  }
  const maxRow = workers ? rows.find((row) => row.server === `switchboard/pg+redis ×${workers}` && row.shape === 'closed 20 sessions') : undefined;
  const postgres = rows.find((row) => row.server === 'switchboard/pg+redis' && row.shape === 'closed 20 sessions');
  const postgresTarget = mode === 'offline' ? 6 : 8;
  if (postgres) checks.push({ target: `${mode} CPU/turn on Postgres + Redis, 20 sessions ≤ ${postgresTarget} ms (server only)`, figure: `${postgres.cpuMsPerTurn} ms`, met: postgres.cpuMsPerTurn <= postgresTarget });
  if (maxRow) checks.push({ target: `${mode} closed-loop max with ${workers} workers ≥ 200 turns/s`, figure: `${maxRow.turnsPerSecond} turns/s`, met: maxRow.turnsPerSecond >= 200 });
  return checks;
}

/** Runs the load bench and prints its tables; `pass` is false when a target is missed or a turn failed. */
export async function main(options: LoadOptions = {}): Promise<LoadResult> {
  const quick = options.quick ?? false;
  const modes = options.modes ?? ['offline', 'llm'];
  const runId = randomUUID().slice(0, 6);
  const dir = mkdtempSync(join(tmpdir(), 'sb-load-'));
  const fakes = await startNodeProcess('bench/load-fakes.ts', [], /^\{/);
  const fakesJson = fakes.readyLine;
  const urls = JSON.parse(fakesJson) as Record<string, string>;
  const configPath = join(dir, 'agents_config.yaml');
  // The databases sit in a folder of their own, as the default `sqlite:./data/switchboard.db` does: beside the
  // registry file, every write would wake the registry's directory watcher.
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  writeFileSync(configPath, sampleRegistry('agents_config.yaml', { 7101: urls.hotel!, 7102: urls.limo!, 7103: urls.flight!, 7104: urls.weather! }));
  const allRows: LoadFigures[] = [];
  const checks: TargetCheck[] = [];
  try {
    for (const mode of modes) {
      const llmEnv = mode === 'llm' ? { LLM_BASE_URL: urls.model, LLM_MODEL: 'fake-main', LLM_API_KEY: 'bench' } : { LLM_BASE_URL: '', LLM_MODEL: '' };
      const boards: Server[] = [await startSwitchboard('switchboard/sqlite', configPath, { ...llmEnv, DATABASE_URL: `sqlite:${join(dataDir, `${mode}.db`)}` })];
      const stops: (() => Promise<void>)[] = [];
      if (options.baseline) {
        boards.push(await startSwitchboard('baseline/sqlite', configPath, { ...llmEnv, DATABASE_URL: `sqlite:${join(dataDir, `${mode}-baseline.db`)}` }, undefined, options.baseline));
      }
      if (options.built) {
        boards.push(await startSwitchboard('built/sqlite', configPath, { ...llmEnv, DATABASE_URL: `sqlite:${join(dataDir, `${mode}-built.db`)}` }, undefined, '.', true));
      }
      const databases: { url: string; drop(): Promise<void> }[] = [];
      if (options.postgres) {
        databases.push(await createScratchDatabase('sb_load'));
        boards.push(await startSwitchboard('switchboard/pg+redis', configPath, { ...llmEnv, DATABASE_URL: databases.at(-1)!.url, REDIS_URL, SWITCHBOARD_WORKERS: '1' }));
        if (options.baseline) {
          // The other checkout on its own database (the same Redis), so a storage change's before and after share the run.
          databases.push(await createScratchDatabase('sb_load'));
          boards.push(await startSwitchboard('baseline/pg+redis', configPath, { ...llmEnv, DATABASE_URL: databases.at(-1)!.url, REDIS_URL, SWITCHBOARD_WORKERS: '1' }, undefined, options.baseline));
        }
      }
      if (options.workers) {
        // Several workers need PostgreSQL (decision 0030).
        databases.push(await createScratchDatabase('sb_load'));
        boards.push(await startSwitchboard(`switchboard/pg+redis ×${options.workers}`, configPath, { ...llmEnv, DATABASE_URL: databases.at(-1)!.url, REDIS_URL }, options.workers));
      }
      const shapePath = join(dir, `${mode}-shape.json`);
      const eventCount = await captureShape(boards[0]!, shapePath);
      const floor = await startFloor(fakesJson, shapePath, mode === 'llm');
      const servers = [floor, ...boards];
      stops.push(...servers.map((server) => () => server.process.stop()));
      try {
        const shapes = shapesFor(quick).filter((each) => !options.shapes || options.shapes.some((part) => shapeName(each).includes(part)));
        // Warm-up outside the measurement: caches, JIT, pools, a keep-alive connection per session of the largest closed loop.
        const sessions = Math.max(4, ...shapes.map((shape) => (shape.kind === 'closed' ? shape.sessions : 0)));
        for (const server of servers) for (const warm of [{ sessions: 4, turns: quick ? 5 : 15 }, { sessions, turns: 1 }]) await runShape(server, { kind: 'closed', ...warm }, `${runId}w`);
        const rows: LoadFigures[] = [];
        for (const shape of shapes) {
          for (const server of servers) rows.push(await runShape(server, shape, runId));
        }
        console.log(`(${mode}: ${eventCount} SSE events per turn, copied by the floor)`);
        printTable(mode, rows);
        allRows.push(...rows.map((row) => ({ ...row, mode })));
        checks.push(...checkTargets(mode, rows, options.workers));
      } finally {
        for (const stop of stops) await stop();
        for (const database of databases) await database.drop();
      }
    }
  } finally {
    await fakes.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('\nTargets (same run, ratios to the floor measured beside them)');
  for (const check of checks) console.log(`  ${check.met ? 'met    ' : 'MISSED '} ${check.target}: ${check.figure}`);
  const errors = allRows.filter((row) => row.errors > 0).length;
  return { rows: allRows, pass: errors === 0 && checks.every((check) => check.met) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, postgres: { type: 'boolean' }, workers: { type: 'string' }, only: { type: 'string' }, shapes: { type: 'string' }, baseline: { type: 'string' }, built: { type: 'boolean' } } });
  const result = await main({
    quick: values.quick,
    postgres: values.postgres,
    workers: values.workers ? Number(values.workers) : undefined,
    modes: values.only ? [values.only as 'offline' | 'llm'] : undefined,
    shapes: values.shapes?.split(','),
    baseline: values.baseline,
    built: values.built,
  });
  process.exitCode = result.pass ? 0 : 1;
}
