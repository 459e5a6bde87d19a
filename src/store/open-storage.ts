/**
 * Chooses the storage backend from `DATABASE_URL` (and `REDIS_URL`):
 * `sqlite:<path>` (default `sqlite:./data/switchboard.db`) or
 * `postgres://...`, optionally with Redis for leases, signals and caches.
 */
import type { Logger } from '../logger.js';
import { openSqliteStorage } from './sqlite/open-sqlite-storage.js';
import type { Storage } from './types.js';

export interface OpenStorageOptions {
  databaseUrl?: string;
  redisUrl?: string;
  logger: Logger;
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
    throw new Error('DATABASE_URL: the Postgres backend is not available in this version; use sqlite:<path>');
  }
  throw new Error(`DATABASE_URL: unsupported scheme in "${redactUrl(url)}"; expected sqlite:<path> or postgres://...`);
}
