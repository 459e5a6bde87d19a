/**
 * Leases and key-value entries on Postgres, one prepared statement each, with
 * expiry judged on the database clock (`sb_now_ms()`). A turn takes and lets
 * go of its session's lease in its own start and finish statements
 * (`withTranscript`, pg-transcript.ts); these are for the rest.
 */
import type pg from 'pg';
import { safeJsonParse } from '../../util/index.js';
import type { KeyValue, KeyValueStore, LeaseStore } from '../types.js';

export function createPostgresLeases(pool: pg.Pool): LeaseStore {
  return {
    withTranscript: true,
    async acquire(key, holder, ttlMs) {
      const { rowCount } = await pool.query({
        name: 'sb_lease_acquire',
        text: `INSERT INTO sb_leases (lease_key, holder, expires_at) VALUES ($1, $2, sb_now_ms() + $3)
         ON CONFLICT (lease_key) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE sb_leases.expires_at <= sb_now_ms() OR sb_leases.holder = EXCLUDED.holder`,
        values: [key, holder, Math.round(ttlMs)],
      });
      return rowCount === 1;
    },
    async renew(key, holder, ttlMs) {
      const { rowCount } = await pool.query({
        name: 'sb_lease_renew',
        text: 'UPDATE sb_leases SET expires_at = sb_now_ms() + $3 WHERE lease_key = $1 AND holder = $2 AND expires_at > sb_now_ms()',
        values: [key, holder, Math.round(ttlMs)],
      });
      return rowCount === 1;
    },
    async release(key, holder) {
      await pool.query({ name: 'sb_lease_release', text: 'DELETE FROM sb_leases WHERE lease_key = $1 AND holder = $2', values: [key, holder] });
    },
    async holder(key) {
      const { rows } = await pool.query<{ holder: string }>({
        name: 'sb_lease_holder',
        text: 'SELECT holder FROM sb_leases WHERE lease_key = $1 AND expires_at > sb_now_ms()',
        values: [key],
      });
      return rows[0]?.holder;
    },
  };
}

export function createPostgresKeyValue(pool: pg.Pool): KeyValueStore {
  let writes = 0;
  const sweep = () => {
    if (++writes % 1000 === 0) pool.query('DELETE FROM sb_kv WHERE expires_at <= sb_now_ms()').catch(() => {});
  };
  return {
    async get(key) {
      const { rows } = await pool.query<{ value: string }>('SELECT value FROM sb_kv WHERE kv_key = $1 AND expires_at > sb_now_ms()', [key]);
      if (!rows[0]) return undefined;
      const parsed = safeJsonParse(rows[0].value);
      return parsed.ok ? (parsed.value as KeyValue) : undefined;
    },
    async set(key, value, ttlMs) {
      await pool.query(
        `INSERT INTO sb_kv (kv_key, value, expires_at) VALUES ($1, $2, sb_now_ms() + $3)
         ON CONFLICT (kv_key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
        [key, JSON.stringify(value), Math.round(ttlMs)],
      );
      sweep();
    },
    async setIfAbsent(key, value, ttlMs) {
      const { rowCount } = await pool.query(
        `INSERT INTO sb_kv (kv_key, value, expires_at) VALUES ($1, $2, sb_now_ms() + $3)
         ON CONFLICT (kv_key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
         WHERE sb_kv.expires_at <= sb_now_ms()`,
        [key, JSON.stringify(value), Math.round(ttlMs)],
      );
      sweep();
      return rowCount === 1;
    },
    async delete(key) {
      await pool.query('DELETE FROM sb_kv WHERE kv_key = $1', [key]);
    },
  };
}
