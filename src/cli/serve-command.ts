/**
 * `switchboard serve [--config F] [--port N] [--host H] [--drain-grace-ms N] [--workers N]`:
 * starts the supervisor HTTP server on a registry file. Settings come from
 * flags, then the environment (docs/api.md#environment), then defaults.
 *
 * `--workers N` runs N processes sharing the port (node:cluster); the default
 * is the number of cores on PostgreSQL and 1 on SQLite. Several workers need
 * PostgreSQL: on SQLite, cancel and resume signals, rate limits and caches
 * live in one process (decision 0030), so `--workers` above 1 is refused there
 * with a message that says so.
 *
 * SIGTERM / SIGINT drain: `/readyz` turns 503 (with `retry-after`) and new
 * turns are refused at once, running turns get the grace period to finish,
 * the rest are cancelled with a `done` that says why, then the server closes.
 */
import cluster from 'node:cluster';
import { readFile } from 'node:fs/promises';
import { availableParallelism, hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../http/index.js';
import { createLlmGatewayFromEnv } from '../llm/index.js';
import { createLogger } from '../logger.js';
import { createPiiMasking } from '../privacy/index.js';
import { createTraceContext } from '../trace-context.js';
import { createSwitchboard, type Switchboard } from '../switchboard.js';
import { redactUrl } from '../store/index.js';
import { startTelemetry } from '../telemetry/index.js';
import { packageFileUrl, packageVersion } from '../util/index.js';
import type { CliIo } from './cli-io.js';

const CHAT_PAGE = fileURLToPath(packageFileUrl('public/chat.html'));
const CONSOLE_PAGE = fileURLToPath(packageFileUrl('public/console.html'));

export interface ServeSettings {
  config: string;
  port: number;
  host: string;
  /** How long a shutdown lets running turns finish before cancelling them. */
  drainGraceMs: number;
  /** Processes sharing the port (`serve` only). */
  workers?: number;
  /** `SWITCHBOARD_LEASE_TTL_MS`, when set. */
  leaseTtlMs?: number;
  /** Settings that do not stop the start but do not do what they seem to (printed on stderr). */
  warnings?: string[];
}

/** The levels the logger knows (`LOG_LEVEL`). */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** Whether a `DATABASE_URL` names PostgreSQL (the storage several processes can share). */
function isPostgresUrl(url: string | undefined): boolean {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url.trim());
}

function readNonNegativeInteger(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`invalid ${name} "${text}": expected a non-negative integer`);
  return value;
}

/** Reads flags and environment; throws with a message naming the bad value. */
export function readServeSettings(args: string[], io: CliIo): ServeSettings {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      'drain-grace-ms': { type: 'string' },
      workers: { type: 'string' },
    },
    strict: true,
  });
  const workersText = values.workers ?? io.env.SWITCHBOARD_WORKERS;
  const postgres = isPostgresUrl(io.env.DATABASE_URL);
  const workers = workersText === undefined ? (postgres ? availableParallelism() : 1) : readNonNegativeInteger('worker count', workersText);
  if (workers < 1) throw new Error(`invalid worker count "${workersText}": expected 1 or more`);
  if (workers > 1 && !postgres) {
    throw new Error(
      `--workers ${workers} needs DATABASE_URL=postgres://…: with SQLite, cancel and resume signals, rate limits and caches stay inside one process, so several workers would not see each other's turns; run one worker on SQLite or use PostgreSQL (and REDIS_URL for shared rate limits and caches)`,
    );
  }
  const redisUrl = io.env.REDIS_URL;
  // Anything else is taken by the Redis client as a socket path and fails later as "Connection is closed".
  if (redisUrl !== undefined && redisUrl !== '' && !/^rediss?:\/\//i.test(redisUrl) && !redisUrl.startsWith('/')) {
    throw new Error(`REDIS_URL "${redactUrl(redisUrl)}": expected redis://host:port or rediss://host:port (or the absolute path of a Redis socket)`);
  }
  const warnings: string[] = [];
  if (redisUrl && !postgres) {
    warnings.push('REDIS_URL is set but not used: Redis shares rate limits, caches and signals between replicas on PostgreSQL (DATABASE_URL=postgres://…); on SQLite they stay in this process');
  }
  const logLevel = io.env.LOG_LEVEL;
  if (logLevel !== undefined && logLevel !== '' && !LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL "${logLevel}": expected one of ${LOG_LEVELS.join(', ')}`);
  const leaseTtlText = io.env.SWITCHBOARD_LEASE_TTL_MS;
  const portText = values.port ?? io.env.PORT ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port "${portText}": expected an integer 0-65535`);
  return {
    config: values.config ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml',
    port,
    host: values.host ?? io.env.HOST ?? '0.0.0.0',
    drainGraceMs: readNonNegativeInteger('drain grace', values['drain-grace-ms'] ?? io.env.SWITCHBOARD_DRAIN_GRACE_MS ?? '20000'),
    workers,
    leaseTtlMs: leaseTtlText ? readNonNegativeInteger('SWITCHBOARD_LEASE_TTL_MS', leaseTtlText) : undefined,
    warnings,
  };
}

export interface StartedSwitchboard {
  switchboard: Switchboard;
  server: RunningServer;
  /** Drains running turns (see the file header), then closes everything. */
  close(): Promise<void>;
}

/** Builds and starts everything for `settings`; used by `serve` and `demo`. */
export async function startSwitchboard(settings: ServeSettings, io: CliIo): Promise<StartedSwitchboard> {
  const masking = createPiiMasking();
  const traceContext = createTraceContext();
  const logger = createLogger({ masker: masking, traceContext });
  // OTEL_EXPORTER_OTLP_ENDPOINT set: spans are exported over OTLP; unset, nothing of OpenTelemetry is loaded.
  const telemetry = await startTelemetry(io.env, { version: packageVersion() }).catch((error: unknown) => {
    // The exporter's own message does not say which setting it could not read.
    throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ${(error as Error).message}`, { cause: error });
  });
  const llm = createLlmGatewayFromEnv(io.env, logger, { tracing: telemetry.tracing });
  const keyList = (text: string | undefined) =>
    (text ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean);
  const apiKeys = keyList(io.env.SWITCHBOARD_API_KEYS);
  const adminKeys = keyList(io.env.SWITCHBOARD_ADMIN_KEYS);
  const switchboard = await createSwitchboard({
    configPath: settings.config,
    databaseUrl: io.env.DATABASE_URL,
    redisUrl: io.env.REDIS_URL,
    replicaId: `${hostname()}:${process.pid}`,
    leaseTtlMs: settings.leaseTtlMs ?? (io.env.SWITCHBOARD_LEASE_TTL_MS ? readNonNegativeInteger('SWITCHBOARD_LEASE_TTL_MS', io.env.SWITCHBOARD_LEASE_TTL_MS) : undefined),
    logger,
    masking,
    env: io.env,
    llm: llm.enabled ? llm : undefined,
    apiKeys,
    adminKeys,
    chatPage: await readFile(CHAT_PAGE, 'utf8').catch(() => undefined),
    consolePage: await readFile(CONSOLE_PAGE, 'utf8').catch(() => undefined),
    traceContext,
    tracing: telemetry.tracing,
  });
  let server: RunningServer;
  try {
    server = await startServer(switchboard.app, { port: settings.port, host: settings.host, streams: switchboard.streams });
  } catch (error) {
    // A port in use: release the registry watcher and storage so the process can exit.
    await switchboard.close();
    await telemetry.shutdown();
    throw error;
  }
  logger.info({ url: server.url, config: settings.config, llm: llm.enabled ? 'on' : 'offline', otel: telemetry.exporting ? 'exporting' : 'off' }, 'switchboard listening');
  return {
    switchboard,
    server,
    async close() {
      logger.info({ turns: switchboard.turns.activeTurns, graceMs: settings.drainGraceMs }, 'shutting down: draining running turns');
      await switchboard.turns.drain(settings.drainGraceMs);
      await server.close();
      await switchboard.close();
      await telemetry.shutdown();
    },
  };
}

/** Resolves when a termination signal arrives. */
export function waitForShutdown(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => resolve(signal);
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

/** The help text of this command (main adds the environment section). */
export const HELP = `Usage: switchboard serve [--config FILE] [--port N] [--host H] [--drain-grace-ms N] [--workers N]

Starts the supervisor HTTP/SSE server: /v1/chat, /v1/sessions/:id/messages,
/v1/agents, /healthz, /readyz, /metrics. Logs are JSON lines on stdout; the
"listening" line and start-up errors go to stderr.

--workers N runs N processes sharing the port (default: the number of cores
on PostgreSQL, 1 on SQLite; more than 1 needs DATABASE_URL=postgres://…).
`;

/** Message a worker sends the primary once it listens. */
interface ListeningMessage {
  type: 'switchboard-listening';
  url: string;
}

/**
 * The primary of `--workers N`: forks the workers (each runs this command and
 * listens on the shared port), prints the listening line once all of them
 * listen, passes SIGTERM / SIGINT on so each drains its own turns, and stops
 * them all when one of them dies (a failed start or a crash is not hidden).
 */
async function runPrimary(settings: ServeSettings, workers: number, io: CliIo): Promise<number> {
  return new Promise((resolve) => {
    let listening = 0;
    let stopping = false;
    let failed = false;
    let alive = workers;
    const stopAll = () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    };
    for (let index = 0; index < workers; index++) {
      const worker = cluster.fork();
      worker.on('message', (message: ListeningMessage) => {
        if (message?.type !== 'switchboard-listening' || ++listening !== workers) return;
        io.stderr(`Switchboard listening on ${message.url} (registry ${settings.config}, ${workers} workers)\n`);
      });
      worker.on('exit', (code, signal) => {
        alive--;
        if (!stopping) {
          failed = true;
          io.stderr(`switchboard serve: worker ${worker.process.pid} exited (${signal ?? code}); stopping the others\n`);
          stopAll();
        } else if (code !== 0 && signal === null) failed = true;
        if (alive === 0) resolve(failed ? 1 : 0);
      });
    }
    void waitForShutdown().then(stopAll);
  });
}

export async function runCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(HELP);
    return 0;
  }
  let settings: ServeSettings;
  try {
    settings = readServeSettings(args, io);
  } catch (error) {
    io.stderr(`switchboard serve: ${(error as Error).message}\n`);
    return 2;
  }
  if (cluster.isPrimary) for (const warning of settings.warnings ?? []) io.stderr(`switchboard serve: ${warning}\n`);
  if ((settings.workers ?? 1) > 1 && cluster.isPrimary) return runPrimary(settings, settings.workers!, io);
  let started: StartedSwitchboard;
  try {
    started = await startSwitchboard(settings, io);
  } catch (error) {
    io.stderr(`switchboard serve: ${(error as Error).message}\n`);
    // A worker's channel to the primary would keep it alive, and the primary waiting for it, forever.
    cluster.worker?.disconnect();
    return 1;
  }
  // stdout carries only JSON log lines; this human line goes to stderr (with workers, the primary writes it).
  if (cluster.isWorker) process.send?.({ type: 'switchboard-listening', url: started.server.url } satisfies ListeningMessage);
  else io.stderr(`Switchboard listening on ${started.server.url} (registry ${settings.config})\n`);
  await waitForShutdown();
  await started.close();
  // A worker's channel to the primary would keep it alive once everything else is closed.
  cluster.worker?.disconnect();
  return 0;
}
