/**
 * Open-loop overload against the real `serve` path (issue 35, item 4).
 *
 * The fakes run in their own process (bench/load-fakes.ts, sub-agents that
 * answer after `--agent-ms`), Switchboard in another (`serve`, SQLite,
 * offline). First the process's capacity is measured: a closed loop of
 * `--sessions` clients sending the three-intent travel turn back to back for
 * `--measure-s` seconds gives turns/s. Then turns are offered at `--factor`
 * (default 2) × that rate for `--seconds`, each at its due time whatever the
 * answers' pace (open loop), while /healthz and /readyz are probed every
 * 100 ms. Printed: turns offered, admitted (200 with a `done` event), refused
 * (503 OVERLOADED with retry-after), other HTTP answers, reset or failed
 * connections, and p50 / p99 / max of the admitted turns counted from when
 * they were due; the /healthz p99 and how often /readyz said saturated.
 *
 * `--limit N` sets `supervisor.max_concurrent_turns` (default: not set, the
 * machine's default). Exit code 1 when a connection was reset or failed, a
 * turn was answered with anything but 200 or 503 OVERLOADED, or nothing was
 * refused (the offered load did not overload).
 *
 * Run: `npx tsx bench/overload.ts [--seconds 20] [--factor 2] [--limit N] [--agent-ms 200] [--sessions 32] [--measure-s 8]`
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { sampleRegistry } from '../test/support/switchboard-harness.js';
import { startNodeProcess, type BenchProcess } from './support/processes.js';
import { openLoop, type OpenLoopFigures } from './support/open-loop.js';
import { sendTurn } from './support/sse-client.js';
import { TRAVEL_TURN } from './travel-turn.js';

/** What one overload run found. */
export interface OverloadResult extends OpenLoopFigures {
  capacityPerSecond: number;
  offeredPerSecond: number;
  limit: string;
  pass: boolean;
}

export interface OverloadOptions {
  seconds?: number;
  factor?: number;
  /** `supervisor.max_concurrent_turns`; undefined = the machine's default. */
  limit?: number;
  agentMs?: number;
  sessions?: number;
  measureSeconds?: number;
}

async function startServe(configPath: string, databaseUrl: string): Promise<{ url: string; process: BenchProcess }> {
  const child = await startNodeProcess('src/cli/main.ts', ['serve', '--config', configPath, '--port', '0', '--host', '127.0.0.1'], /Switchboard listening on (http:\/\/\S+)/, {
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    LLM_BASE_URL: '',
    LLM_MODEL: '',
  });
  return { url: /Switchboard listening on (http:\/\/\S+)/.exec(child.readyLine)![1]!, process: child };
}

/** Closed loop: `sessions` clients, each sending its next turn when the last ended; turns/s completed. */
async function measureCapacity(url: string, sessions: number, seconds: number, runId: string): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let completed = 0;
  let serial = 0;
  await Promise.all(
    Array.from({ length: sessions }, async (_unused, index) => {
      while (performance.now() < until) {
        const timing = await sendTurn(url, { query: TRAVEL_TURN.query, user_id: `cap-${index}`, session_id: `cap-${runId}-${serial++}` }, performance.now());
        if (timing.outcome === 'completed') completed += 1;
      }
    }),
  );
  return completed / seconds;
}

/** Runs the bench and prints its figures. */
export async function main(options: OverloadOptions = {}): Promise<OverloadResult> {
  const seconds = options.seconds ?? 20;
  const factor = options.factor ?? 2;
  const runId = randomUUID().slice(0, 6);
  const dir = mkdtempSync(join(tmpdir(), 'sb-overload-'));
  const fakes = await startNodeProcess('bench/load-fakes.ts', ['--agent-ms', String(options.agentMs ?? 200)], /^\{/);
  let server: { url: string; process: BenchProcess } | undefined;
  try {
    const urls = JSON.parse(fakes.readyLine) as Record<string, string>;
    const configPath = join(dir, 'agents_config.yaml');
    mkdirSync(join(dir, 'data'));
    let yaml = sampleRegistry('agents_config.yaml', { 7101: urls.hotel!, 7102: urls.limo!, 7103: urls.flight!, 7104: urls.weather! }, { answerCacheTtlS: 0 });
    if (options.limit !== undefined) yaml = yaml.replace(/^supervisor:\n/m, `supervisor:\n  max_concurrent_turns: ${options.limit}\n`);
    writeFileSync(configPath, yaml);
    server = await startServe(configPath, `sqlite:${join(dir, 'data', 'overload.db')}`);
    const limitText = options.limit !== undefined ? String(options.limit) : 'machine default';

    // Warm-up (JIT, pools), then the capacity.
    await measureCapacity(server.url, 4, 2, `${runId}w`);
    // No more closed-loop clients than the limit admits: a refused turn is not capacity.
    const sessions = Math.min(options.sessions ?? 32, options.limit ?? Infinity);
    const capacity = await measureCapacity(server.url, sessions, options.measureSeconds ?? 8, runId);
    const rate = Math.max(1, Math.round(capacity * factor));
    console.log(`capacity (closed loop, ${sessions} clients, ${options.measureSeconds ?? 8} s, agents answer after ${options.agentMs ?? 200} ms): ${capacity.toFixed(1)} turns/s`);
    console.log(`offering ${rate} turns/s (${factor}× capacity) for ${seconds} s, open loop; max_concurrent_turns: ${limitText}; load ${loadavg()[0]!.toFixed(1)}`);

    const figures = await openLoop(server.url, { rate, seconds, query: TRAVEL_TURN.query, sessionPrefix: `ol-${runId}` });
    const metrics = await fetch(`${server.url}/metrics`).then((response) => response.text()).catch(() => '');
    const rejectedMetric = /switchboard_turns_rejected_total\{reason="overloaded"\} (\d+)/.exec(metrics)?.[1] ?? '?';
    const limitMetric = /"max_concurrent_turns":(\d+)/.exec(figures.readySample ?? '')?.[1];
    console.log(`  offered ${figures.offered}: admitted ${figures.admitted} (done), refused 503 OVERLOADED ${figures.refused} (all with retry-after: ${figures.refusedWithoutRetryAfter === 0 ? 'yes' : `no, ${figures.refusedWithoutRetryAfter} without`}), other HTTP ${figures.otherHttp}, reset/failed connections ${figures.failed}`);
    if (figures.failedSample) console.log(`    e.g. ${figures.failedSample}`);
    if (figures.otherSample) console.log(`    e.g. ${figures.otherSample}`);
    console.log(`  admitted turns, from when due: p50 ${figures.admittedP50Ms} ms, p99 ${figures.admittedP99Ms} ms, max ${figures.admittedMaxMs} ms; refusals answered in p99 ${figures.refusedP99Ms} ms`);
    console.log(`  /healthz during the run: ${figures.healthProbes} probes, ${figures.healthFailures} not 200, p99 ${figures.healthP99Ms} ms; /readyz saturated in ${figures.readySaturated} of ${figures.readyProbes} probes${limitMetric ? ` (limit ${limitMetric})` : ''}`);
    console.log(`  switchboard_turns_rejected_total{reason="overloaded"} ${rejectedMetric}; load ${loadavg()[0]!.toFixed(1)}`);
    const pass = figures.failed === 0 && figures.otherHttp === 0 && figures.refused > 0 && figures.refusedWithoutRetryAfter === 0;
    console.log(`overload: ${pass ? 'PASS' : 'FAIL'} (no reset connections, only 200 or 503 OVERLOADED with retry-after, and the offered load was refused in part)`);
    return { ...figures, capacityPerSecond: capacity, offeredPerSecond: rate, limit: limitText, pass };
  } finally {
    await server?.process.stop();
    await fakes.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      factor: { type: 'string' },
      limit: { type: 'string' },
      'agent-ms': { type: 'string' },
      sessions: { type: 'string' },
      'measure-s': { type: 'string' },
    },
  });
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const result = await main({
    seconds: number(values.seconds),
    factor: number(values.factor),
    limit: number(values.limit),
    agentMs: number(values['agent-ms']),
    sessions: number(values.sessions),
    measureSeconds: number(values['measure-s']),
  });
  process.exitCode = result.pass ? 0 : 1;
}
