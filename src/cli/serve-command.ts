/**
 * `switchboard serve [--config F] [--port N] [--host H] [--drain-grace-ms N]`:
 * starts the supervisor HTTP server on a registry file. Settings come from
 * flags, then the environment (docs/api.md#environment), then defaults.
 *
 * SIGTERM / SIGINT drain: `/readyz` turns 503 (with `retry-after`) and new
 * turns are refused at once, running turns get the grace period to finish,
 * the rest are cancelled with a `done` that says why, then the server closes.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startServer, type RunningServer } from '../http/index.js';
import { createLlmGatewayFromEnv } from '../llm/index.js';
import { createLogger } from '../logger.js';
import { createPiiMasking } from '../privacy/index.js';
import { createTraceContext } from '../trace-context.js';
import { createSwitchboard, type Switchboard } from '../switchboard.js';
import { startTelemetry } from '../telemetry/start-otel.js';
import type { CliIo } from './cli-io.js';

const CHAT_PAGE = fileURLToPath(new URL('../../public/chat.html', import.meta.url));

export interface ServeSettings {
  config: string;
  port: number;
  host: string;
  /** How long a shutdown lets running turns finish before cancelling them. */
  drainGraceMs: number;
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
    },
    strict: true,
  });
  const portText = values.port ?? io.env.PORT ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port "${portText}": expected an integer 0-65535`);
  return {
    config: values.config ?? io.env.SWITCHBOARD_CONFIG ?? 'agents_config.yaml',
    port,
    host: values.host ?? io.env.HOST ?? '0.0.0.0',
    drainGraceMs: readNonNegativeInteger('drain grace', values['drain-grace-ms'] ?? io.env.SWITCHBOARD_DRAIN_GRACE_MS ?? '20000'),
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
  const telemetry = await startTelemetry(io.env, { version: packageVersion() });
  const llm = createLlmGatewayFromEnv(io.env, logger, { tracing: telemetry.tracing });
  const apiKeys = (io.env.SWITCHBOARD_API_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  const switchboard = await createSwitchboard({
    configPath: settings.config,
    databaseUrl: io.env.DATABASE_URL,
    redisUrl: io.env.REDIS_URL,
    replicaId: `${hostname()}:${process.pid}`,
    leaseTtlMs: io.env.SWITCHBOARD_LEASE_TTL_MS ? readNonNegativeInteger('SWITCHBOARD_LEASE_TTL_MS', io.env.SWITCHBOARD_LEASE_TTL_MS) : undefined,
    logger,
    masking,
    env: io.env,
    llm: llm.enabled ? llm : undefined,
    apiKeys,
    chatPage: await readFile(CHAT_PAGE, 'utf8').catch(() => undefined),
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
export const HELP = `Usage: switchboard serve [--config FILE] [--port N] [--host H] [--drain-grace-ms N]

Starts the supervisor HTTP/SSE server: /v1/chat, /v1/sessions/:id/messages,
/v1/agents, /healthz, /readyz, /metrics. Logs are JSON lines on stdout; the
"listening" line and start-up errors go to stderr.
`;

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
  let started: StartedSwitchboard;
  try {
    started = await startSwitchboard(settings, io);
  } catch (error) {
    io.stderr(`switchboard serve: ${(error as Error).message}\n`);
    return 1;
  }
  // stdout carries only JSON log lines; this human line goes to stderr.
  io.stderr(`Switchboard listening on ${started.server.url} (registry ${settings.config})\n`);
  await waitForShutdown();
  await started.close();
  return 0;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? '0.0.0';
}
