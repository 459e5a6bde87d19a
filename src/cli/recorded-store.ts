/**
 * What `replay` and `review` share: the store of recorded turns named by
 * `DATABASE_URL` (a SQLite path is read from the command's directory and must
 * exist: reading never creates an empty store), the `--since` option, and a
 * replay of two registries over the store with the strategies the server
 * would choose (offline, or the model when LLM_* is set).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { replayTurns, createRouter, type ReplayResult } from '../eval/index.js';
import { createLlmGatewayFromEnv } from '../llm/index.js';
import { silentLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { openStorage, redactUrl, type Storage } from '../store/index.js';
import { chooseStrategies } from '../switchboard.js';
import type { CliIo } from './cli-io.js';

const DEFAULT_DATABASE_URL = 'sqlite:./data/switchboard.db';

/** Opens the store of recorded turns; throws with a message naming the URL when it cannot. */
export async function openRecordedStore(io: CliIo): Promise<{ storage: Storage; name: string }> {
  const url = io.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    const file = isAbsolute(path) ? path : resolve(io.cwd, path);
    if (path === '' || path === ':memory:' || !existsSync(file)) throw new Error(`DATABASE_URL ${url}: no store of recorded turns at ${file}`);
    return { storage: await openStorage({ databaseUrl: `sqlite:${file}`, logger: silentLogger }), name: `sqlite:${path}` };
  }
  return { storage: await openStorage({ databaseUrl: url, logger: silentLogger }), name: redactUrl(url) };
}

const UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Reads `--since`: a span back from now (`30m`, `24h`, `7d`, `2w`) or a date
 * or time (`2026-11-01`, ISO 8601). Returns the ISO start time, or an error message.
 */
export function parseSince(value: string, now: Date = new Date()): { ok: true; iso: string } | { ok: false; message: string } {
  const span = /^(\d+)([mhdw])$/u.exec(value.trim());
  if (span) return { ok: true, iso: new Date(now.getTime() - Number(span[1]) * UNITS_MS[span[2]!]!).toISOString() };
  if (/^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/u.test(value.trim())) {
    const at = new Date(value.trim());
    if (!Number.isNaN(at.getTime())) return { ok: true, iso: at.toISOString() };
  }
  return { ok: false, message: `--since must be a span such as 7d, 24h, 30m, 2w or a date such as 2026-11-01 (got "${value}")` };
}

/** What a replay over the store needs from the command. */
export interface StoreReplay {
  storage: Storage;
  base: RegistrySnapshot;
  next: RegistrySnapshot;
  since?: string;
  tenant?: string;
  limit?: number;
}

/** Replays the store's turns with both registries; returns the result, the mode and the time it took. */
export async function replayStore(io: CliIo, options: StoreReplay): Promise<{ result: ReplayResult; mode: string; ms: number }> {
  const llm = createLlmGatewayFromEnv(io.env, silentLogger);
  const strategies = chooseStrategies(llm.enabled ? llm : undefined, silentLogger, createMetrics());
  strategies.prepare(options.base);
  strategies.prepare(options.next);
  const now = new Date();
  const started = performance.now();
  const result = await replayTurns({
    history: options.storage.history,
    base: createRouter(strategies.recognizer, options.base, { now }),
    next: createRouter(strategies.recognizer, options.next, { now }),
    ...(options.since !== undefined ? { since: options.since } : {}),
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
  });
  return { result, mode: llm.enabled ? 'llm' : 'offline', ms: performance.now() - started };
}
