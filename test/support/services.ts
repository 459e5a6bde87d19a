/**
 * Real PostgreSQL and Redis for `*.int.test.ts`: a fresh database per use
 * (created from `SWITCHBOARD_TEST_DATABASE_URL`, default the local `test`
 * database, and dropped afterwards) and a fresh key prefix per use in Redis
 * (`SWITCHBOARD_TEST_REDIS_URL`, default the local server). When a server is
 * absent the tests that need it are skipped with a loud message; `.ci/run`
 * makes sure both are running, so CI never skips them.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';

export const ADMIN_DATABASE_URL = process.env.SWITCHBOARD_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.SWITCHBOARD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function loud(service: string, url: string, error: unknown): void {
  // CI starts both services first: there, an absent one is a failure, never a skip.
  if (process.env.SWITCHBOARD_REQUIRE_SERVICES === '1') throw new Error(`${service} at ${url} is required (SWITCHBOARD_REQUIRE_SERVICES=1) but not reachable: ${(error as Error).message}`);
  const line = '!'.repeat(78);
  process.stderr.write(`\n${line}\n!!! ${service} at ${url.replace(/\/\/[^@/]*@/, '//***@')} is not reachable: ${(error as Error).message}\n!!! SKIPPING the tests that need it. Start it (see .ci/run) to run them.\n${line}\n\n`);
}

/** True when the Postgres server answers (prints a loud warning otherwise). */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    loud('PostgreSQL', ADMIN_DATABASE_URL, error);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** True when the Redis server answers (prints a loud warning otherwise). */
export async function redisAvailable(): Promise<boolean> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch (error) {
    loud('Redis', TEST_REDIS_URL, error);
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * One fresh database for a test file (created on first use, dropped by
 * `dropAll`) and, inside it, a fresh schema per storage: creating a schema is
 * cheap, creating and dropping databases is not (about a second each here).
 */
export function createSchemaFactory(label: string) {
  const databases = createDatabaseFactory(label);
  let database: Promise<string> | undefined;
  let count = 0;
  const run = randomUUID().slice(0, 6);
  return {
    /** The file's database URL and a schema name no one used yet. */
    async create(): Promise<{ databaseUrl: string; schema: string }> {
      database ??= databases.create();
      return { databaseUrl: await database, schema: `s_${run}_${count++}` };
    },
    databaseUrl: () => database ?? (database = databases.create()),
    dropAll: () => databases.dropAll(),
  };
}

/** Creates empty databases on the test server and drops them all at the end. */
export function createDatabaseFactory(label: string) {
  const created: string[] = [];
  const run = randomUUID().slice(0, 8);
  const admin = () => new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  return {
    /** A fresh, empty database; returns its URL. */
    async create(): Promise<string> {
      const name = `sb_${label}_${run}_${created.length}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      const client = admin();
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      created.push(name);
      const url = new URL(ADMIN_DATABASE_URL);
      url.pathname = `/${name}`;
      return url.toString();
    },
    /** Drops every database this factory created (open connections are cut). */
    async dropAll(): Promise<void> {
      if (created.length === 0) return;
      const client = admin();
      await client.connect();
      try {
        for (const name of created.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A Redis key prefix unique to this run (and label). */
export function redisPrefix(label: string): string {
  return `${process.env.SWITCHBOARD_TEST_REDIS_PREFIX ?? 'sbtest:'}${label}:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under a prefix. */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
