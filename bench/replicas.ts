/**
 * Storage backends and replicas under load: zero-latency fake sub-agents,
 * offline mode, 50 concurrent sessions each sending business turns one after
 * another ("帮我订北京明天的酒店": one hotel sub-task), over real HTTP/SSE.
 *
 *   1 replica on SQLite · 1 replica on Postgres · 2 replicas on Postgres + Redis
 *
 * Prints turns/s and p50/p99 turn latency per setup with the ratios to
 * SQLite, the Postgres cost of one business turn (round trips and database
 * time, measured alone and averaged under load), and checks that two replicas
 * lose no turn and double no message (every session's transcript is exactly
 * user/assistant pairs, all completed). With two replicas a session's turns
 * alternate between them, so every turn takes over a session last served by
 * the other replica. Both replicas run in this process (one event loop): the
 * machine has 2 cores shared with Postgres, so absolute scaling is not the
 * target; what is measured is the cost of sharing state.
 *
 * Database CPU is the CPU time of the database's backend processes (from
 * /proc/<pid>/schedstat of the pids `pg_stat_activity` lists for it; the
 * server runs on this machine), per turn: alone (also by statement), and
 * averaged under load. Under load it is read after a warm-up of one turn in
 * each of 50 other sessions at once, which opens the pools' connections: a
 * connection's start and first statements cost tens of ms of database CPU
 * once, printed on their own line.
 *
 * Targets: ≤ 6 round trips and ≤ 3 ms of database CPU per business turn;
 * Postgres adds ≤ 15 ms p50 per turn over SQLite; no lost turn, no doubled message.
 *
 * Needs PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test;
 * a database is created for the run and dropped) and Redis (BENCH_REDIS_URL,
 * default redis://127.0.0.1:6379; keys under a per-run prefix, deleted).
 * Run: `npx tsx bench/replicas.ts [--single-turn]` (`--single-turn`: only the one-turn costs, with each statement). `bench/run-all.ts` may import `main()`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startServer, type RunningServer } from '../src/http/index.js';
import { silentLogger } from '../src/logger.js';
import { createSwitchboard, type Switchboard } from '../src/switchboard.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../test/support/fake-agent.js';
import { chatOverSse, sampleRegistry } from '../test/support/switchboard-harness.js';
import { deleteRedisPrefix } from '../test/support/services.js';
import { createCostCounters } from './support/cost-counters.js';
import { backendCpuMs, postgresBackendCpu, type BackendCpu } from './support/postgres-cpu.js';

const SESSIONS = 50;
const TURNS_PER_SESSION = 4;
const QUERY = '帮我订北京明天的酒店';
const TARGET_ROUND_TRIPS = 6;
const TARGET_DATABASE_CPU_MS = 3;
const TARGET_ADDED_P50_MS = 15;
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Replica {
  switchboard: Switchboard;
  server: RunningServer;
}

interface SetupResult {
  name: string;
  turns: number;
  turnsPerSecond: number;
  p50: number;
  p99: number;
  /** Statements per turn under load (Postgres only). */
  roundTripsPerTurn?: number;
  /** Database time per turn under load, ms (sum of statement round trips). */
  databaseMsPerTurn?: number;
  /** CPU of the database's backend processes per turn under load, ms (the pools' connections open and warm). */
  databaseCpuMsPerTurn?: number;
  /** CPU of the database's backends during the warm-up (connections started, statements prepared), ms, and how many backends it started. */
  warmUp?: { databaseCpuMs: number; backendsStarted: number };
  failures: number;
  /** Why turns failed (outcome or error text), counted. */
  failureReasons: Record<string, number>;
  transcriptProblems: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function withDatabase<T>(body: (databaseUrl: string) => Promise<T>): Promise<T> {
  const name = `sb_bench_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    return await body(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

async function startReplicas(count: number, configPath: string, databaseUrl: string, redis: { url: string; prefix: string } | undefined, onQuery?: (ms: number) => void): Promise<Replica[]> {
  const replicas: Replica[] = [];
  for (let index = 0; index < count; index++) {
    const switchboard = await createSwitchboard({
      configPath,
      databaseUrl,
      redisUrl: redis?.url,
      redisPrefix: redis?.prefix,
      onStorageQuery: onQuery,
      logger: silentLogger,
      env: {},
      watch: false,
      heartbeatMs: 0,
      replicaId: `bench-${index}`,
    });
    replicas.push({ switchboard, server: await startServer(switchboard.app, { port: 0, host: '127.0.0.1' }) });
  }
  return replicas;
}

async function stopReplicas(replicas: Replica[]): Promise<void> {
  for (const replica of replicas) {
    await replica.server.close();
    await replica.switchboard.close();
  }
}

async function checkTranscripts(replica: Replica, sessions: string[]): Promise<number> {
  let problems = 0;
  for (const sessionId of sessions) {
    const rows = await replica.switchboard.storage.transcript.listMessages('bench', sessionId);
    const pairs = rows.length === TURNS_PER_SESSION * 2 && rows.every((row, index) => row.role === (index % 2 === 0 ? 'user' : 'assistant'));
    const completed = rows.filter((row) => row.role === 'assistant').every((row) => row.metadata?.outcome === 'completed');
    if (!pairs || !completed) problems++;
  }
  return problems;
}

/**
 * `databaseUrl`: the CPU of the database's backends is read around the measured turns, and around the warm-up.
 * The warm-up is one turn in each of as many other sessions at once (module caches; every connection of
 * the pools opened and its statements prepared, a one-off cost of each connection, reported on its own).
 */
async function runSetup(name: string, replicas: Replica[], stats?: { queries: number; ms: number; reset(): void }, databaseUrl?: string): Promise<SetupResult> {
  const run = randomUUID().slice(0, 6);
  const sessions = Array.from({ length: SESSIONS }, (_, index) => `bench-${run}-${index}`);
  const backendCpu = databaseUrl ? await postgresBackendCpu(databaseUrl) : undefined;
  try {
    return await measuredSetup(name, replicas, run, sessions, stats, backendCpu);
  } finally {
    await backendCpu?.close();
  }
}

async function measuredSetup(
  name: string,
  replicas: Replica[],
  run: string,
  sessions: string[],
  stats: { queries: number; ms: number; reset(): void } | undefined,
  backendCpu: BackendCpu | undefined,
): Promise<SetupResult> {
  const backendsBefore = backendCpu ? await backendCpu.backends() : 0;
  const warmUpCpuBefore = backendCpu ? await backendCpu.ms() : 0;
  await Promise.all(
    sessions.map((_, index) => chatOverSse(replicas[index % replicas.length]!.server.url, QUERY, { userId: 'bench', sessionId: `warm-${run}-${index}` })),
  );
  const cpuBefore = backendCpu ? await backendCpu.ms() : 0;
  const warmUp = backendCpu ? { databaseCpuMs: round(cpuBefore - warmUpCpuBefore), backendsStarted: (await backendCpu.backends()) - backendsBefore } : undefined;
  stats?.reset();
  const latencies: number[] = [];
  let failures = 0;
  const failureReasons: Record<string, number> = {};
  const fail = (reason: string) => {
    failures++;
    failureReasons[reason] = (failureReasons[reason] ?? 0) + 1;
  };
  const started = performance.now();
  await Promise.all(
    sessions.map(async (sessionId) => {
      for (let turn = 0; turn < TURNS_PER_SESSION; turn++) {
        const replica = replicas[turn % replicas.length]!;
        const turnStarted = performance.now();
        try {
          const events = await chatOverSse(replica.server.url, QUERY, { userId: 'bench', sessionId });
          const state = events.at(-1)?.metadata.state;
          if (state?.outcome !== 'completed') fail(`outcome ${String(state?.outcome)}${state?.reason ? ` (${String(state.reason)})` : ''}`);
        } catch (error) {
          fail((error as Error).message.slice(0, 120));
        }
        latencies.push(performance.now() - turnStarted);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const cpuAfter = backendCpu ? await backendCpu.ms() : 0;
  const turns = SESSIONS * TURNS_PER_SESSION;
  const sorted = latencies.sort((a, b) => a - b);
  const result: SetupResult = {
    name,
    turns,
    turnsPerSecond: round((turns / elapsedMs) * 1000),
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    failures,
    failureReasons,
    transcriptProblems: await checkTranscripts(replicas[0]!, sessions),
  };
  if (stats) {
    result.roundTripsPerTurn = round(stats.queries / turns);
    result.databaseMsPerTurn = round(stats.ms / turns);
  }
  if (backendCpu) {
    result.databaseCpuMsPerTurn = round((cpuAfter - cpuBefore) / turns, 2);
    result.warmUp = warmUp;
  }
  return result;
}

/**
 * CPU of each statement's backend while it ran (read before it is sent and when its answer is in; the
 * backend is idle around it), by prepared statement name or first words, from `start` to `stop`.
 */
function statementCpu() {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const byStatement = new Map<string, { count: number; ms: number }>();
  return {
    start() {
      prototype.query = function (this: pg.Client & { processID?: number }, ...args: unknown[]) {
        const config = args[0] as string | { text?: string; name?: string; submit?: unknown } | undefined;
        const pid = this.processID;
        if (pid === undefined || (typeof config === 'object' && typeof config?.submit === 'function')) return original.apply(this, args);
        const text = typeof config === 'string' ? config : (config?.text ?? '');
        const name = (typeof config === 'object' && config?.name) || text.replace(/\s+/g, ' ').trim().slice(0, 60);
        const before = backendCpuMs(pid);
        const report = () => {
          const entry = byStatement.get(name) ?? { count: 0, ms: 0 };
          entry.count++;
          entry.ms += backendCpuMs(pid) - before;
          byStatement.set(name, entry);
        };
        const last = args.length - 1;
        if (typeof args[last] === 'function') {
          const callback = args[last] as (...results: unknown[]) => void;
          args[last] = (...results: unknown[]) => {
            report();
            callback(...results);
          };
          return original.apply(this, args);
        }
        const result = original.apply(this, args);
        return result instanceof Promise ? result.finally(report) : result;
      };
    },
    stop: () => {
      prototype.query = original;
      return byStatement;
    },
  };
}

/** Round trips, database time and database CPU of one business turn on an idle system, with its statements. */
async function singleTurnCost(replica: Replica, stats: { queries: number; ms: number; reset(): void }, databaseUrl: string) {
  const sessionId = `single-${randomUUID().slice(0, 6)}`;
  // The first turn of a session and a later one differ (no checkpoint to read yet).
  await chatOverSse(replica.server.url, QUERY, { userId: 'bench', sessionId });
  const counters = await createCostCounters(process.cwd());
  const backendCpu = await postgresBackendCpu(databaseUrl);
  const samples: { queries: number; ms: number; statements: Record<string, number> }[] = [];
  // The total over all samples, per turn (in 10 ms ticks where the kernel has no schedstat).
  let cpuMs = 0;
  const cpuOfStatements = statementCpu();
  let byStatement = new Map<string, { count: number; ms: number }>();
  try {
    const cpuBefore = await backendCpu.ms();
    cpuOfStatements.start();
    for (let index = 0; index < 20; index++) {
      stats.reset();
      counters.start();
      await chatOverSse(replica.server.url, QUERY, { userId: 'bench', sessionId });
      // The done event may be sent before the last writes are stored; let them land.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { statements } = counters.stop();
      samples.push({ queries: stats.queries, ms: stats.ms, statements });
    }
    byStatement = cpuOfStatements.stop();
    cpuMs = ((await backendCpu.ms()) - cpuBefore) / samples.length;
  } finally {
    cpuOfStatements.stop();
    await backendCpu.close();
  }
  samples.sort((a, b) => a.queries - b.queries);
  const cpuByStatement = [...byStatement]
    .map(([name, entry]) => ({ name, perTurn: entry.count / samples.length, cpuMs: entry.ms / samples.length }))
    .sort((a, b) => b.cpuMs - a.cpuMs);
  return { ...samples[Math.floor(samples.length / 2)]!, cpuMs, cpuByStatement };
}

export interface ReplicasBenchResult {
  setups: SetupResult[];
  singleTurn: { queries: number; ms: number; cpuMs: number };
  pass: boolean;
}

/** `singleTurnOnly`: only the cost of one business turn, alone, on Postgres and on Postgres + Redis (no load). */
export async function main(options: { singleTurnOnly?: boolean } = {}): Promise<ReplicasBenchResult> {
  // The reply meets the sample hotel card's `output_schema` (a reply that does not is a failed task).
  const hotel: FakeAgent = await startFakeAgent(
    jsonReply({ message: '已为您预订北京饭店。', output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' } }),
  );
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-replicas-'));
  const configPath = join(dir, 'agents_config.yaml');
  writeFileSync(configPath, sampleRegistry('agents_config.yaml', { 7101: hotel.url }));
  const stats = {
    queries: 0,
    ms: 0,
    reset() {
      this.queries = 0;
      this.ms = 0;
    },
  };
  const onQuery = (ms: number) => {
    stats.queries++;
    stats.ms += ms;
  };
  const setups: SetupResult[] = [];
  type SingleTurn = { queries: number; ms: number; cpuMs: number; statements: Record<string, number>; cpuByStatement: { name: string; perTurn: number; cpuMs: number }[] };
  let singleTurn: SingleTurn = { queries: 0, ms: 0, cpuMs: 0, statements: {}, cpuByStatement: [] };
  let singleTurnRedis: SingleTurn | undefined;
  const prefix = `sbbench:${randomUUID().slice(0, 8)}:`;
  try {
    if (!options.singleTurnOnly) {
      const sqlite = await startReplicas(1, configPath, `sqlite:${join(dir, 'bench.db')}`, undefined);
      setups.push(await runSetup('1 replica, SQLite', sqlite));
      await stopReplicas(sqlite);
    }

    await withDatabase(async (databaseUrl) => {
      const one = await startReplicas(1, configPath, databaseUrl, undefined, onQuery);
      singleTurn = await singleTurnCost(one[0]!, stats, databaseUrl);
      if (!options.singleTurnOnly) setups.push(await runSetup('1 replica, Postgres', one, stats, databaseUrl));
      await stopReplicas(one);
    });
    await withDatabase(async (databaseUrl) => {
      const two = await startReplicas(2, configPath, databaseUrl, { url: REDIS_URL, prefix }, onQuery);
      singleTurnRedis = await singleTurnCost(two[0]!, stats, databaseUrl);
      if (!options.singleTurnOnly) setups.push(await runSetup('2 replicas, Postgres + Redis', two, stats, databaseUrl));
      await stopReplicas(two);
    });
  } finally {
    await hotel.close();
    rmSync(dir, { recursive: true, force: true });
    await deleteRedisPrefix(prefix).catch(() => {});
  }

  const printSingle = (label: string, turn: SingleTurn) => {
    console.log(
      `One business turn on ${label}, alone: ${turn.queries} round trips, ${round(turn.ms)} ms of database time, ${round(turn.cpuMs, 2)} ms of database CPU (targets ≤ ${TARGET_ROUND_TRIPS} round trips, ≤ ${TARGET_DATABASE_CPU_MS} ms; load average ${loadavg().map((value) => value.toFixed(1)).join(' ')})`,
    );
    for (const [statement, count] of Object.entries(turn.statements).filter(([name]) => name.startsWith('pg:')).sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(3)}  ${statement}`);
    console.log('  database CPU by statement, per turn (its backend while it ran, commit included):');
    for (const entry of turn.cpuByStatement.filter((item) => item.cpuMs >= 0.01)) {
      console.log(`  ${entry.cpuMs.toFixed(2).padStart(6)} ms  ${entry.perTurn.toFixed(2).padStart(5)}×  ${entry.name}`);
    }
  };
  printSingle('Postgres', singleTurn);
  if (singleTurnRedis) printSingle('Postgres + Redis', singleTurnRedis);
  const singleMet = [singleTurn, ...(singleTurnRedis ? [singleTurnRedis] : [])].every((turn) => turn.queries <= TARGET_ROUND_TRIPS && turn.cpuMs <= TARGET_DATABASE_CPU_MS);
  if (options.singleTurnOnly) return { setups, singleTurn: { queries: singleTurn.queries, ms: singleTurn.ms, cpuMs: singleTurn.cpuMs }, pass: singleMet };
  const base = setups[0]!;
  console.log(`Replicas: ${SESSIONS} concurrent sessions × ${TURNS_PER_SESSION} business turns, zero-latency agents, offline`);
  console.log('setup                          turns/s   p50 ms   p99 ms   ×turns/s  ×p50   round trips/turn  db ms/turn  db CPU ms/turn  failed  transcript problems');
  for (const setup of setups) {
    console.log(
      [
        setup.name.padEnd(30),
        String(setup.turnsPerSecond).padStart(7),
        String(setup.p50).padStart(8),
        String(setup.p99).padStart(8),
        `${round(setup.turnsPerSecond / base.turnsPerSecond, 2)}`.padStart(9),
        `${round(setup.p50 / base.p50, 2)}`.padStart(6),
        String(setup.roundTripsPerTurn ?? '-').padStart(17),
        String(setup.databaseMsPerTurn ?? '-').padStart(11),
        String(setup.databaseCpuMsPerTurn ?? '-').padStart(15),
        String(setup.failures).padStart(7),
        String(setup.transcriptProblems).padStart(20),
      ].join(' '),
    );
  }
  for (const setup of setups) {
    if (setup.warmUp) {
      console.log(
        `${setup.name}: warm-up (${SESSIONS} first turns at once, not in the figures above): ${setup.warmUp.databaseCpuMs} ms of database CPU, ${setup.warmUp.backendsStarted} backends started (load average ${loadavg().map((value) => value.toFixed(1)).join(' ')})`,
      );
    }
  }
  for (const setup of setups) {
    if (setup.failures > 0) console.log(`${setup.name}: failed turns: ${JSON.stringify(setup.failureReasons)}`);
  }
  const postgres = setups[1]!;
  const addedP50 = round(postgres.p50 - base.p50);
  console.log(`Postgres adds ${addedP50} ms p50 per turn over SQLite under load (target ≤ ${TARGET_ADDED_P50_MS} ms)`);
  const clean = setups.every((setup) => setup.failures === 0 && setup.transcriptProblems === 0);
  console.log(`No lost turn, no doubled message: ${clean ? 'yes' : 'NO'}`);
  const underLoad = setups.filter((setup) => setup.databaseCpuMsPerTurn !== undefined);
  const cpuMet = singleMet && underLoad.every((setup) => setup.databaseCpuMsPerTurn! <= TARGET_DATABASE_CPU_MS);
  const pass = clean && cpuMet && addedP50 <= TARGET_ADDED_P50_MS;
  return { setups, singleTurn: { queries: singleTurn.queries, ms: singleTurn.ms, cpuMs: singleTurn.cpuMs }, pass };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await main({ singleTurnOnly: process.argv.includes('--single-turn') });
  process.exitCode = result.pass ? 0 : 1;
}
