/**
 * A PostgreSQL database of a bench run's own, created on the local server
 * (`BENCH_DATABASE_URL`, default the `test` database as `postgres`) and dropped
 * by `drop()`, so runs never see each other's rows.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The server's administrative URL the scratch databases are created from. */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Creates `<prefix>_<random>` and returns its URL. */
export async function createScratchDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}
