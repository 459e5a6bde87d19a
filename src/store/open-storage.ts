/**
 * Chooses the storage backend from `DATABASE_URL` (and `REDIS_URL`):
 * `sqlite:<path>` (default `sqlite:./data/switchboard.db`) or
 * `postgres://...`, optionally with Redis for leases, signals and caches.
 */
import type { Logger } from '../logger.js';
import { openPostgresStorage } from './postgres/open-postgres-storage.js';
import { openRedisSharedState } from './redis/redis-shared-state.js';
import { openSqliteStorage } from './sqlite/open-sqlite-storage.js';
import type { Storage } from './types.js';

export interface OpenStorageOptions {
  databaseUrl?: string;
  /** With Postgres: leases, signals and key-value entries go to Redis. Ignored with SQLite. */
  redisUrl?: string;
  /** Prefix of every Redis key (default `switchboard:`). */
  redisPrefix?: string;
  /** Postgres schema of every table (default `public`). */
  postgresSchema?: string;
  logger: Logger;
  /** Called once per Postgres statement with its duration (benchmarks count round trips). */
  onQuery?: (durationMs: number) => void;
}

/** Hides the password of a connection URL for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** Opens (and for Postgres migrates) the storage named by the URLs. */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
  const url = options.databaseUrl ?? 'sqlite:./data/switchboard.db';
  if (url.startsWith('sqlite:')) {
    return openSqliteStorage(url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') || ':memory:');
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    let postgres: Storage;
    try {
      postgres = await openPostgresStorage({ connectionString: url, logger: options.logger, schema: options.postgresSchema, onQuery: options.onQuery });
    } catch (error) {
      throw new Error(`DATABASE_URL ${redactUrl(url)}: ${(error as Error).message}`, { cause: error });
    }
    if (!options.redisUrl) return postgres;
    let redis;
    try {
      redis = await openRedisSharedState({ url: options.redisUrl, prefix: options.redisPrefix, logger: options.logger });
    } catch (error) {
      await postgres.close();
      throw new Error(`${(error as Error).message.replace(options.redisUrl, redactUrl(options.redisUrl))}`, { cause: error });
    }
    return {
      ...postgres,
      kind: 'postgres+redis',
      leases: redis.leases,
      signals: redis.signals,
      kv: redis.kv,
      createRateLimiter: redis.createRateLimiter,
      async close() {
        await redis.close();
        await postgres.close();
      },
    };
  }
  throw new Error(`DATABASE_URL: unsupported scheme in "${redactUrl(url)}"; expected sqlite:<path> or postgres://...`);
}
