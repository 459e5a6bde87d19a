/**
 * The cost ledger: what one business turn costs in counts that do not depend
 * on the machine's load, for this checkout and a baseline commit, in one run.
 *
 * Each checkout runs in a process of its own (the same script, copied into a
 * temporary `git worktree` of the baseline) against the same fakes
 * (bench/load-fakes.ts, another process): the three-intent travel turn,
 * offline, sessions of 5 turns one after another over HTTP/SSE, on SQLite and
 * (with `--postgres`) on PostgreSQL + Redis, each request handled inside its
 * trace id's context as `serve` does. After a warm-up, one stretch of
 * turns is timed (process CPU and V8 heap bytes allocated, from GC
 * statistics; the client's small share included) and another is counted
 * with the counters of bench/support/cost-counters.ts: storage round trips,
 * statements and parameter bytes, Redis commands, JSON serialisations,
 * regular-expression executions, outgoing requests, schema compilations,
 * and the server's guard and masking passes (counted by `src/util/cost-ledger.ts`;
 * shown as `-` for a checkout without it).
 *
 * Run: `npx tsx bench/cost-ledger.ts [--baseline <ref>|--no-baseline] [--postgres] [--turns N] [--detail]`
 * (default baseline: the merge-base with `main`, or `HEAD~` on `main` itself;
 * `--detail` lists each storage statement per turn). `bench/run-all.ts` imports `main()`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, copyFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { startNodeProcess } from './support/processes.js';
import { createCostCounters, type Counts } from './support/cost-counters.js';
import { sendTurn } from './support/sse-client.js';
import { TRAVEL_TURN } from './travel-turn.js';
import { createScratchDatabase } from './support/scratch-database.js';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const HERE = dirname(fileURLToPath(import.meta.url));
const OWN_FILES = ['bench/cost-ledger.ts', 'bench/support/cost-counters.ts', 'bench/support/scratch-database.ts'];

/** What one checkout's process reports. */
export interface LedgerFigures {
  turns: number;
  cpuMsPerTurn: number;
  allocatedKbPerTurn: number;
  /** Per turn. */
  counts: Counts;
  /** Per turn, by statement. */
  statements: Counts;
  failed: number;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

/** Bytes allocated on the V8 heap while `body` ran: the used heap's growth between collections, summed. */
async function allocatedWhile(body: () => Promise<void>): Promise<number> {
  const profiler = new GCProfiler();
  const usedAtStart = getHeapStatistics().used_heap_size;
  profiler.start();
  await body();
  const usedAtEnd = getHeapStatistics().used_heap_size;
  const { statistics } = profiler.stop();
  let allocated = 0;
  let previous = usedAtStart;
  for (const gc of statistics) {
    allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - previous);
    previous = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + Math.max(0, usedAtEnd - previous);
}

/** The measuring process: one server of this checkout, in process, on the given storage. */
async function child(options: { fakes: string; databaseUrl: string; redisUrl?: string; redisPrefix?: string; turns: number }): Promise<LedgerFigures> {
  const root = resolve(HERE, '..');
  const counters = await createCostCounters(root);
  const { createSwitchboard } = (await import(pathToFileURL(join(root, 'src/switchboard.ts')).href)) as typeof import('../src/switchboard.js');
  const { startServer } = (await import(pathToFileURL(join(root, 'src/http/index.ts')).href)) as typeof import('../src/http/index.js');
  const { silentLogger } = (await import(pathToFileURL(join(root, 'src/logger.ts')).href)) as typeof import('../src/logger.js');
  const { createTraceContext } = (await import(pathToFileURL(join(root, 'src/trace-context.ts')).href)) as typeof import('../src/trace-context.js');
  const { sampleRegistry } = (await import(pathToFileURL(join(root, 'test/support/switchboard-harness.ts')).href)) as typeof import('../test/support/switchboard-harness.js');
  const urls = JSON.parse(options.fakes) as Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'sb-ledger-'));
  const configPath = join(dir, 'agents_config.yaml');
  writeFileSync(configPath, sampleRegistry('agents_config.yaml', { 7101: urls.hotel!, 7102: urls.limo!, 7103: urls.flight!, 7104: urls.weather! }));
  const databaseUrl = options.databaseUrl.startsWith('sqlite:') ? `sqlite:${join(dir, 'ledger.db')}` : options.databaseUrl;
  const switchboard = await createSwitchboard({
    configPath,
    databaseUrl,
    redisUrl: options.redisUrl,
    redisPrefix: options.redisPrefix,
    logger: silentLogger,
    // As `serve` has it: every request handled inside its trace id's context.
    traceContext: createTraceContext(),
    env: {},
    watch: false,
    heartbeatMs: 0,
  });
  const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1' });
  let serial = 0;
  let failed = 0;
  const run = async (turns: number) => {
    let session = '';
    for (let turn = 0; turn < turns; turn++) {
      if (turn % 5 === 0) session = `ledger-${serial++}`;
      const timing = await sendTurn(server.url, { query: TRAVEL_TURN.query, user_id: 'ledger', session_id: session }, performance.now());
      if (timing.outcome !== 'completed') failed++;
    }
    // The last events of a turn may be stored just after its `done` event.
    await sleep(300);
  };
  try {
    await run(15);
    failed = 0;
    const cpu = process.cpuUsage();
    const allocated = await allocatedWhile(() => run(options.turns));
    const used = process.cpuUsage(cpu);
    counters.start();
    await run(options.turns);
    const { counts, statements } = counters.stop();
    const perTurn = (values: Counts) => Object.fromEntries(Object.entries(values).map(([name, value]) => [name, round(value / options.turns)]));
    return {
      turns: options.turns,
      // The timed stretch includes 300 ms of idle wait, which costs no CPU.
      cpuMsPerTurn: round((used.user + used.system) / 1000 / options.turns),
      allocatedKbPerTurn: round(allocated / 1024 / options.turns, 1),
      counts: perTurn(counts),
      statements: perTurn(statements),
      failed,
    };
  } finally {
    await server.close();
    await switchboard.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs this script in `checkout` as the measuring process and reads its figures. */
function runChild(checkout: string, args: string[]): Promise<LedgerFigures> {
  return new Promise((resolveRun, reject) => {
    const process_ = spawn(process.execPath, ['--import', 'tsx', join(checkout, 'bench/cost-ledger.ts'), '--child', ...args], { cwd: checkout, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    process_.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    process_.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    process_.on('exit', (code) => {
      const line = out.split('\n').find((each) => each.startsWith('LEDGER '));
      if (code === 0 && line) resolveRun(JSON.parse(line.slice(7)) as LedgerFigures);
      else reject(new Error(`the ledger of ${checkout} failed (${code}):\n${err.slice(-2000)}${out.slice(-1000)}`));
    });
  });
}

/** A temporary worktree of `ref` with this checkout's modules and the ledger's own files. */
function baselineCheckout(ref: string): { dir: string; commit: string; remove(): void } {
  const own = resolve(HERE, '..');
  const commit = execFileSync('git', ['rev-parse', '--short', ref], { cwd: own, encoding: 'utf8' }).trim();
  const dir = join(mkdtempSync(join(tmpdir(), 'sb-ledger-base-')), 'checkout');
  execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: own, stdio: 'ignore' });
  symlinkSync(join(own, 'node_modules'), join(dir, 'node_modules'));
  for (const file of OWN_FILES) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(own, file), join(dir, file));
  }
  return {
    dir,
    commit,
    remove() {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: own, stdio: 'ignore' });
      rmSync(dirname(dir), { recursive: true, force: true });
    },
  };
}

function defaultBaseline(): string {
  const own = resolve(HERE, '..');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: own, encoding: 'utf8' }).trim();
  const head = git('rev-parse', 'HEAD');
  try {
    const base = git('merge-base', 'HEAD', 'main');
    return base === head ? 'HEAD~' : base;
  } catch {
    return 'HEAD~';
  }
}


export interface LedgerOptions {
  /** A git ref to compare with; `false`: none. Default: the merge-base with `main` (`HEAD~` on `main`). */
  baseline?: string | false;
  postgres?: boolean;
  turns?: number;
  detail?: boolean;
}

export interface LedgerColumn {
  name: string;
  figures: LedgerFigures;
}

export interface LedgerResult {
  columns: LedgerColumn[];
  pass: boolean;
}

function printLedger(columns: LedgerColumn[], detail: boolean): void {
  const names = [...new Set(columns.flatMap((column) => Object.keys(column.figures.counts)))].sort();
  const rows: string[][] = [
    ['CPU ms/turn (machine-dependent)', ...columns.map((column) => String(column.figures.cpuMsPerTurn))],
    ['V8 heap allocated KB/turn', ...columns.map((column) => String(column.figures.allocatedKbPerTurn))],
    ...names.map((name) => [name, ...columns.map((column) => (name in column.figures.counts ? String(column.figures.counts[name]) : '-'))]),
  ];
  const header = ['per business turn', ...columns.map((column) => column.name)];
  const widths = header.map((title, index) => Math.max(title.length, ...rows.map((row) => row[index]!.length)));
  const format = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ');
  console.log(format(header));
  for (const row of rows) console.log(format(row));
  if (!detail) return;
  for (const column of columns) {
    const entries = Object.entries(column.figures.statements).sort((a, b) => b[1] - a[1]);
    console.log(`\nStorage statements per turn, ${column.name}:`);
    for (const [statement, count] of entries.filter(([name]) => !name.startsWith('regex:'))) console.log(`  ${String(count).padStart(7)}  ${statement}`);
    console.log(`\nRegular expressions per turn (the 40 most run), ${column.name}:`);
    for (const [statement, count] of entries.filter(([name]) => name.startsWith('regex:')).slice(0, 40)) console.log(`  ${String(count).padStart(7)}  ${statement}`);
  }
}

/** Runs the ledger for this checkout and the baseline, prints it; `pass` is false when a turn failed. */
export async function main(options: LedgerOptions = {}): Promise<LedgerResult> {
  const turns = options.turns ?? 30;
  const baselineRef = options.baseline === false ? undefined : (options.baseline ?? defaultBaseline());
  const fakes = await startNodeProcess(join(HERE, 'load-fakes.ts'), [], /^\{/);
  const baseline = baselineRef ? baselineCheckout(baselineRef) : undefined;
  const checkouts = [...(baseline ? [{ label: `base ${baseline.commit}`, dir: baseline.dir }] : []), { label: 'this', dir: resolve(HERE, '..') }];
  const columns: LedgerColumn[] = [];
  try {
    for (const backend of ['sqlite', ...(options.postgres ? ['pg+redis'] : [])]) {
      for (const checkout of checkouts) {
        const database = backend === 'sqlite' ? undefined : await createScratchDatabase('sb_ledger');
        const prefix = `sbledger:${randomUUID().slice(0, 8)}:`;
        try {
          const args = ['--fakes', fakes.readyLine, '--turns', String(turns), '--database', database?.url ?? 'sqlite:', ...(database ? ['--redis', REDIS_URL, '--prefix', prefix] : [])];
          columns.push({ name: `${backend} ${checkout.label}`, figures: await runChild(checkout.dir, args) });
        } finally {
          await database?.drop();
          if (database) await import('../test/support/services.js').then(({ deleteRedisPrefix }) => deleteRedisPrefix(prefix)).catch(() => {});
        }
      }
    }
  } finally {
    baseline?.remove();
    await fakes.stop();
  }
  console.log(`Cost ledger: the three-intent travel turn, offline, ${turns} turns per column (sessions of 5), counted in the server's process`);
  printLedger(columns, options.detail ?? false);
  const failed = columns.filter((column) => column.figures.failed > 0);
  for (const column of failed) console.log(`${column.name}: ${column.figures.failed} turns did not complete`);
  return { columns, pass: failed.length === 0 };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      child: { type: 'boolean' },
      fakes: { type: 'string' },
      database: { type: 'string' },
      redis: { type: 'string' },
      prefix: { type: 'string' },
      turns: { type: 'string' },
      baseline: { type: 'string' },
      'no-baseline': { type: 'boolean' },
      postgres: { type: 'boolean' },
      detail: { type: 'boolean' },
    },
  });
  if (values.child) {
    const figures = await child({ fakes: values.fakes!, databaseUrl: values.database!, redisUrl: values.redis, redisPrefix: values.prefix, turns: Number(values.turns ?? 30) });
    console.log(`LEDGER ${JSON.stringify(figures)}`);
    process.exit(0);
  }
  const result = await main({ baseline: values['no-baseline'] ? false : values.baseline, postgres: values.postgres, turns: values.turns ? Number(values.turns) : undefined, detail: values.detail });
  process.exitCode = result.pass ? 0 : 1;
}
