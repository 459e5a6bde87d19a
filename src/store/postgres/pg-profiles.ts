/**
 * Postgres profile facts and the right to be forgotten (`forgetUser`), each
 * write in one transaction.
 */
import type pg from 'pg';
import { evidenceColumns, factFromRow, PROFILE_UPSERT_SET, type ProfileRow } from '../profile-rows.js';
import { checkpointThreadPrefix } from '../owner-key.js';
import type { ProfileFact, ProfileStore } from '../types.js';

async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** The Postgres `ProfileStore`. */
export function createPostgresProfiles(pool: pg.Pool): ProfileStore {
  return {
    async get(userId) {
      const { rows } = await pool.query<ProfileRow>(
        'SELECT fact_key, value, hits, session_id, turn_id, first_seen, updated_at FROM sb_profiles WHERE user_id = $1 ORDER BY fact_key',
        [userId],
      );
      return rows.flatMap((row): ProfileFact[] => {
        const fact = factFromRow(row);
        return fact ? [fact] : [];
      });
    },
    async record(userId, evidence) {
      if (evidence.length === 0) return;
      await inTransaction(pool, async (client) => {
        for (const item of evidence) {
          await client.query(
            `INSERT INTO sb_profiles (user_id, fact_key, value, hits, session_id, turn_id, first_seen, updated_at) VALUES ($1, $2, $3, 1, $4, $5, $6, $7)
             ON CONFLICT (user_id, fact_key) DO UPDATE SET ${PROFILE_UPSERT_SET}`,
            [userId, item.key, ...evidenceColumns(item)],
          );
        }
      });
    },
    async delete(userId) {
      await pool.query('DELETE FROM sb_profiles WHERE user_id = $1', [userId]);
    },
  };
}

/** Deletes the user's profile and every session of the user; returns the sessions deleted. */
export function createPostgresForgetUser(pool: pg.Pool): (userId: string) => Promise<{ sessions: number }> {
  return (userId) =>
    inTransaction(pool, async (client) => {
      await client.query('DELETE FROM sb_profiles WHERE user_id = $1', [userId]);
      await client.query('DELETE FROM sb_events WHERE turn_id IN (SELECT turn_id FROM sb_turns WHERE user_id = $1)', [userId]);
      await client.query('DELETE FROM sb_tasks WHERE user_id = $1', [userId]);
      await client.query('DELETE FROM sb_messages WHERE user_id = $1', [userId]);
      await client.query('DELETE FROM sb_turns WHERE user_id = $1', [userId]);
      const { rowCount } = await client.query('DELETE FROM sb_sessions WHERE user_id = $1', [userId]);
      // Every checkpoint thread of the owner starts with its prefix, and no other owner's does.
      const prefix = checkpointThreadPrefix(userId);
      for (const table of ['checkpoint_writes', 'checkpoint_blobs', 'checkpoints']) {
        await client.query(`DELETE FROM ${table} WHERE left(thread_id, length($1)) = $1`, [prefix]);
      }
      return { sessions: rowCount ?? 0 };
    });
}
