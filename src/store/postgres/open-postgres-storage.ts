/**
 * Postgres storage: our tables through one `pg` pool (parameterised queries
 * only) and the official LangGraph Postgres checkpointer on the same pool.
 * The schema is created or upgraded at open (see migrate-postgres.ts).
 */
import pg from 'pg';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Logger } from '../../logger.js';
import type { Storage } from '../types.js';
import { migratePostgres } from './migrate-postgres.js';
import { createPostgresKeyValue, createPostgresLeases } from './pg-leases.js';
import { createPostgresEvents, createPostgresRetention, createPostgresTasks } from './pg-records.js';
import { createPostgresSignalBus } from './pg-signal-bus.js';
import { createPostgresTranscript } from './pg-transcript.js';

export interface PostgresStorageOptions {
  connectionString: string;
  logger: Logger;
  /** Largest number of connections this process opens. Default 20. */
  maxConnections?: number;
  /** Schema for every table (default `public`); tests give each storage its own. */
  schema?: string;
  /** Called once per statement sent (round-trip counting in benchmarks). */
  onQuery?: () => void;
}

/** Counts every statement a pooled client sends (the pool's own `query` goes through a client too). */
function countQueries(pool: pg.Pool, onQuery: () => void): void {
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      onQuery();
      return original(...args);
    };
  });
}

/** Drops all checkpoints of a thread but the newest, with the writes and channel blobs only they used. */
const PRUNE_CHECKPOINTS = `
WITH newest AS (
  SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1
), gone_checkpoints AS (
  DELETE FROM checkpoints c USING newest WHERE c.thread_id = $1 AND c.checkpoint_id <> newest.checkpoint_id RETURNING 1
), gone_writes AS (
  DELETE FROM checkpoint_writes w USING newest WHERE w.thread_id = $1 AND w.checkpoint_id <> newest.checkpoint_id RETURNING 1
)
DELETE FROM checkpoint_blobs b USING newest
WHERE b.thread_id = $1 AND b.checkpoint_ns = ''
  AND (newest.checkpoint -> 'channel_versions' ->> b.channel) IS DISTINCT FROM b.version`;

/** Opens the pool, migrates, and returns the storage. */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 20, options: `-c search_path=${schema}` });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (error) => options.logger.warn({ err: error }, 'postgres connection lost'));
  if (options.onQuery) countQueries(pool, options.onQuery);
  const checkpointer = new PostgresSaver(pool, undefined, { schema });
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
    transcript: createPostgresTranscript(pool),
    events: createPostgresEvents(pool),
    tasks: createPostgresTasks(pool),
    leases: createPostgresLeases(pool),
    signals,
    kv: createPostgresKeyValue(pool),
    checkpointer,
    async pruneCheckpoints(threadId) {
      await pool.query(PRUNE_CHECKPOINTS, [threadId]);
    },
    deleteOlderThan: createPostgresRetention(pool),
    close() {
      closing ??= (async () => {
        await signals.close();
        await pool.end();
      })();
      return closing;
    },
  };
}
