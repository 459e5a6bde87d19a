/**
 * Creates and upgrades the Postgres schema at start: the numbered files in
 * `migrations/` (applied in order, each in its own transaction, recorded in
 * `schema_version`) and the LangGraph checkpointer's own tables. Everything
 * runs under one advisory lock, so replicas starting at the same moment take
 * turns instead of racing on `CREATE TABLE`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** Arbitrary constant naming Switchboard's migration lock (`pg_advisory_lock`). */
const MIGRATION_LOCK = 7_318_004_112;
const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migration files, ordered by their number (`NNN-name.sql`). */
export function readMigrations(directory = MIGRATIONS_DIR): Migration[] {
  return readdirSync(directory)
    .filter((file) => /^\d+-[\w-]+\.sql$/.test(file))
    .map((file) => ({ version: Number.parseInt(file, 10), name: file, sql: readFileSync(`${directory}${file}`, 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Applies what is missing and runs `afterMigrations` (the checkpointer's
 * setup) while still holding the lock. Returns the versions it applied.
 */
export async function migratePostgres(pool: pg.Pool, afterMigrations: () => Promise<void>, schema = 'public', migrations = readMigrations()): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      // The pool's search_path names the schema; it must exist before anything is created in it.
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_version')).rows.map((row) => row.version));
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.version);
      }
      await afterMigrations();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}
