/**
 * Leases and key-value entries with a TTL on SQLite. Each operation is one
 * statement (an upsert guarded by expiry), so processes sharing the file
 * agree on who holds what; expiry uses this machine's clock (one file, one
 * machine).
 */
import type Database from 'better-sqlite3';
import type { KeyValue, KeyValueStore, LeaseStore } from '../types.js';
import { safeJsonParse } from '../../util/index.js';
import { writeGroupOf } from './sqlite-write-group.js';

/** Takes a lease when free, expired or already the holder's: (key, holder, expires at, now, holder). */
export const SQLITE_TAKE_LEASE = `INSERT INTO sb_leases (lease_key, holder, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (lease_key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE sb_leases.expires_at <= ? OR sb_leases.holder = ?`;
/** Frees a lease if the holder has it: (key, holder). */
export const SQLITE_FREE_LEASE = 'DELETE FROM sb_leases WHERE lease_key = ? AND holder = ?';

/**
 * Per-key leases in `sb_leases`. They live with the transcript (`withTranscript`): a turn's start takes its
 * session's lease and its finish lets go of it in their own writes (sqlite-transcript.ts).
 */
export function createSqliteLeases(db: Database.Database, now: () => number = Date.now): LeaseStore {
  const take = db.prepare<[string, string, number, number, string]>(SQLITE_TAKE_LEASE);
  const extend = db.prepare<[number, string, string, number]>(
    'UPDATE sb_leases SET expires_at = ? WHERE lease_key = ? AND holder = ? AND expires_at > ?',
  );
  const free = db.prepare<[string, string]>(SQLITE_FREE_LEASE);
  const current = db.prepare<[string, number], { holder: string }>('SELECT holder FROM sb_leases WHERE lease_key = ? AND expires_at > ?');
  const group = writeGroupOf(db);
  return {
    withTranscript: true,
    async acquire(key, holder, ttlMs) {
      const at = now();
      // Held at once: the group keeps the file's write lock until it commits, and the turn's first durable write covers it.
      return group.writeAhead(() => take.run(key, holder, at + ttlMs, at, holder).changes === 1);
    },
    async renew(key, holder, ttlMs) {
      const at = now();
      return group.write(() => extend.run(at + ttlMs, key, holder, at).changes === 1);
    },
    async release(key, holder) {
      await group.write(() => free.run(key, holder));
    },
    async holder(key) {
      return current.get(key, now())?.holder;
    },
  };
}

/** Key-value entries in `sb_kv`. */
export function createSqliteKeyValue(db: Database.Database, now: () => number = Date.now): KeyValueStore {
  const read = db.prepare<[string, number], { value: string }>('SELECT value FROM sb_kv WHERE kv_key = ? AND expires_at > ?');
  const write = db.prepare<[string, string, number]>(
    `INSERT INTO sb_kv (kv_key, value, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (kv_key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`,
  );
  const writeIfAbsent = db.prepare<[string, string, number, number]>(
    `INSERT INTO sb_kv (kv_key, value, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (kv_key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at WHERE sb_kv.expires_at <= ?`,
  );
  const remove = db.prepare<[string]>('DELETE FROM sb_kv WHERE kv_key = ?');
  const sweep = db.prepare<[number]>('DELETE FROM sb_kv WHERE expires_at <= ?');
  let writes = 0;
  const group = writeGroupOf(db);
  return {
    async get(key) {
      const text = read.get(key, now())?.value;
      if (text === undefined) return undefined;
      const parsed = safeJsonParse(text);
      return parsed.ok ? (parsed.value as KeyValue) : undefined;
    },
    async set(key, value, ttlMs) {
      const text = JSON.stringify(value);
      await group.write(() => {
        write.run(key, text, now() + ttlMs);
        if (++writes % 1000 === 0) sweep.run(now());
      });
    },
    async setIfAbsent(key, value, ttlMs) {
      const at = now();
      const text = JSON.stringify(value);
      return group.write(() => writeIfAbsent.run(key, text, at + ttlMs, at).changes === 1);
    },
    async delete(key) {
      await group.write(() => remove.run(key));
    },
  };
}
