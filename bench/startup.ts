/**
 * Startup and CPU per turn of `serve` from the TypeScript sources (through tsx, as
 * `npm run cli` runs them) and from the build (`node dist/src/cli/main.js`, after
 * `npm run build`), alternated round by round in one run: wall time from spawn to the
 * first `/readyz` 200, the process's CPU time up to then, its resident memory then and
 * after the turns, and the server's CPU per turn over 100 three-intent travel turns one
 * after another (after 20 warm-up turns) against zero-latency fakes (bench/load-fakes.ts);
 * plus a one-shot command (`--version`) both ways. Medians of the rounds; the load
 * average is printed because the machine is shared.
 *
 * Run: `npm run build && npx tsx bench/startup.ts [rounds]` (default 5).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleRegistry } from '../test/support/switchboard-harness.js';
import { startNodeProcess } from './support/processes.js';
import { sendTurn } from './support/sse-client.js';
import { TRAVEL_TURN } from './travel-turn.js';

const VARIANTS = { source: 'src/cli/main.ts', built: 'dist/src/cli/main.js' } as const;
type Variant = keyof typeof VARIANTS;

interface Startup {
  readyMs: number;
  cpuMs: number;
  rssMb: number;
  rssAfterTurnsMb: number;
  cpuMsPerTurn: number;
}

const WARM_TURNS = 20;
const TIMED_TURNS = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 10) / 10;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((text) => text.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) / 1024;
}

async function startOnce(variant: Variant, configPath: string, dir: string, round_: number): Promise<Startup> {
  const started = performance.now();
  const server = await startNodeProcess(VARIANTS[variant], ['serve', '--config', configPath, '--port', '0', '--host', '127.0.0.1'], /Switchboard listening on (http:\/\/\S+)/, {
    LOG_LEVEL: 'warn',
    DATABASE_URL: `sqlite:${join(dir, `${variant}-${round_}.db`)}`,
    LLM_BASE_URL: '',
    LLM_MODEL: '',
  });
  try {
    const url = /Switchboard listening on (http:\/\/\S+)/.exec(server.readyLine)![1]!;
    while ((await fetch(`${url}/readyz`).then((response) => response.status, () => 0)) !== 200) await new Promise((wake) => setTimeout(wake, 5));
    const readyMs = performance.now() - started;
    const cpuMs = server.cpuMs();
    const rss = rssMb(server.child.pid!);
    const send = async (turn: number) => {
      const timing = await sendTurn(url, { query: TRAVEL_TURN.query, user_id: 'startup', session_id: `startup-${variant}-${round_}-${turn}` }, performance.now(), false);
      if (timing.outcome !== 'completed') throw new Error(`turn ${turn} on ${variant}: ${timing.outcome}`);
    };
    for (let turn = 0; turn < WARM_TURNS; turn++) await send(turn);
    const before = server.cpuMs();
    for (let turn = WARM_TURNS; turn < WARM_TURNS + TIMED_TURNS; turn++) await send(turn);
    const cpuMsPerTurn = (server.cpuMs() - before) / TIMED_TURNS;
    return { readyMs, cpuMs, rssMb: rss, rssAfterTurnsMb: rssMb(server.child.pid!), cpuMsPerTurn };
  } finally {
    await server.stop();
  }
}

function versionMs(variant: Variant): number {
  const started = performance.now();
  const loader = variant === 'source' ? ['--import', 'tsx'] : [];
  const result = spawnSync(process.execPath, [...loader, VARIANTS[variant], '--version'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`--version failed (${variant}): ${result.stderr}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  if (!existsSync(VARIANTS.built)) throw new Error('no build: run `npm run build` first');
  const rounds = Number(process.argv[2] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'sb-startup-'));
  const configPath = join(dir, 'agents_config.yaml');
  const fakes = await startNodeProcess('bench/load-fakes.ts', [], /^\{/);
  const urls = JSON.parse(fakes.readyLine) as Record<string, string>;
  writeFileSync(configPath, sampleRegistry('agents_config.yaml', { 7101: urls.hotel!, 7102: urls.limo!, 7103: urls.flight!, 7104: urls.weather! }));
  const figures: Record<Variant, Startup[]> = { source: [], built: [] };
  const versions: Record<Variant, number[]> = { source: [], built: [] };
  try {
    for (let index = 0; index < rounds; index++) {
      for (const variant of ['source', 'built'] as const) {
        figures[variant].push(await startOnce(variant, configPath, dir, index));
        versions[variant].push(versionMs(variant));
      }
    }
  } finally {
    await fakes.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`serve startup and CPU per turn, ${rounds} rounds alternated (medians; load average ${loadavg()[0]!.toFixed(2)})`);
  console.log(`variant  to /readyz 200 ms  CPU ms to ready  RSS MB at ready  RSS MB after ${WARM_TURNS + TIMED_TURNS} turns  CPU ms/turn  --version ms`);
  for (const variant of ['source', 'built'] as const) {
    const rows = figures[variant];
    console.log(
      [
        variant.padEnd(7),
        String(round(median(rows.map((row) => row.readyMs)))).padStart(17),
        String(round(median(rows.map((row) => row.cpuMs)))).padStart(16),
        String(round(median(rows.map((row) => row.rssMb)))).padStart(16),
        String(round(median(rows.map((row) => row.rssAfterTurnsMb)))).padStart(23),
        String(round(median(rows.map((row) => row.cpuMsPerTurn)))).padStart(11),
        String(round(median(versions[variant]))).padStart(13),
      ].join('  '),
    );
  }
  console.log(`CPU ms/turn by round: source ${figures.source.map((row) => round(row.cpuMsPerTurn)).join(', ')}; built ${figures.built.map((row) => round(row.cpuMsPerTurn)).join(', ')}`);
}

await main();
