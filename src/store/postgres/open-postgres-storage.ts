/**
 * Postgres storage: our tables through one `pg` pool (parameterised queries
 * only) and the official LangGraph Postgres checkpointer on the same pool.
 * The schema is created or upgraded at open (see migrate-postgres.ts).
 */
import { createMemoryRateLimiter } from '../rate-limiter.js';
import pg from 'pg';
import type { Logger } from '../../logger.js';
import type { Storage } from '../types.js';
import { BoundedPostgresSaver } from './bounded-postgres-saver.js';
import { migratePostgres } from './migrate-postgres.js';
import { createPostgresKeyValue, createPostgresLeases } from './pg-leases.js';
import { createPostgresEvents, createPostgresRetention, createPostgresTasks } from './pg-records.js';
import { createPostgresSignalBus } from './pg-signal-bus.js';
import { createPostgresTranscript } from './pg-transcript.js';
import { createPostgresTurnHistory } from './pg-turn-history.js';
import { createPostgresForgetUser, createPostgresProfiles, createPrefetchedProfiles } from './pg-profiles.js';
import { createPostgresA2aTasks } from './pg-a2a-tasks.js';
import { createWriteBehind } from './pg-write-behind.js';
import { createPrefetchedCheckpoints } from './pg-checkpoint-prefetch.js';

/** How long an idle pooled connection is kept. */
const IDLE_CONNECTION_MS = 5 * 60_000;

export interface PostgresStorageOptions {
  connectionString: string;
  logger: Logger;
  /** Largest number of connections this process opens. Default 20. */
  maxConnections?: number;
  /** Schema for every table (default `public`); tests give each storage its own. */
  schema?: string;
  /** Called once per statement when its answer arrived, with the round trip's duration (benchmarks). */
  onQuery?: (durationMs: number) => void;
}

/**
 * Times every statement a pooled client sends (the pool's own `query` goes
 * through a client too): callback and promise forms both report once.
 */
function countQueries(pool: pg.Pool, onQuery: (durationMs: number) => void): void {
  pool.on('connect', (client) => {
    // Looked up at each call, so a counter a bench puts on the prototype later still sees these statements.
    const prototype = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
    const original = (...args: unknown[]) => prototype.query.apply(client, args);
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const started = performance.now();
      const report = () => onQuery(performance.now() - started);
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const callback = args[last] as (...results: unknown[]) => void;
        args[last] = (...results: unknown[]) => {
          report();
          callback(...results);
        };
        return original(...args);
      }
      const result = original(...args);
      if (result instanceof Promise) return result.finally(report);
      report();
      return result;
    };
  });
}

/** Opens the pool, migrates, and returns the storage. */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  // A connection is kept while idle for minutes, not the driver's 10 s: a new one costs the database about
  // 10 ms of CPU to start and to prepare the turn's statements again (decision 0056). Idle ones do not keep
  // the process alive.
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 20,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    allowExitOnIdle: true,
    options: `-c search_path=${schema}`,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'postgres connection lost'));
  if (options.onQuery) countQueries(pool, options.onQuery);
  const writes = createWriteBehind(pool);
  const prefetched = createPrefetchedProfiles();
  const checkpoints = createPrefetchedCheckpoints();
  const checkpointer = new BoundedPostgresSaver(pool, schema, writes, checkpoints);
  try {
    await migratePostgres(pool, () => checkpointer.setup(), schema);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const signals = await createPostgresSignalBus({ pool, connectionString: options.connectionString, logger: options.logger });
  let closing: Promise<void> | undefined;
  return {
    kind: 'postgres',
    createRateLimiter: createMemoryRateLimiter,
    transcript: createPostgresTranscript(pool, writes, prefetched, checkpoints),
    events: createPostgresEvents(pool, writes),
    tasks: createPostgresTasks(pool, writes),
    history: createPostgresTurnHistory(pool, writes),
    leases: createPostgresLeases(pool),
    signals,
    kv: createPostgresKeyValue(pool),
    profiles: createPostgresProfiles(pool, writes, prefetched),
    a2aTasks: createPostgresA2aTasks(pool),
    forgetUser: createPostgresForgetUser(pool, writes, prefetched, checkpoints),
    checkpointer,
    async pruneCheckpoints() {
      // The saver keeps only the newest checkpoint of a thread as it writes (bounded-postgres-saver.ts).
    },
    deleteOlderThan: createPostgresRetention(pool, writes),
    close() {
      closing ??= (async () => {
        await writes.flush().catch((error: unknown) => options.logger.warn({ err: error }, 'storing the last turn events failed'));
        await signals.close();
        await pool.end();
      })();
      return closing;
    },
  };
}
