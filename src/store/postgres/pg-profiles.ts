/**
 * Postgres profile facts and the right to be forgotten (`forgetUser`), each
 * write in one transaction.
 */
import type pg from 'pg';
import { evidenceColumns, factFromRow, lastPerKey, PROFILE_UPSERT_SET, type ProfileRow } from '../profile-rows.js';
import { a2aTaskUserOf, checkpointThreadPrefix } from '../owner-key.js';
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
      // One statement, one round trip (atomic by itself). A key twice in one call counts once, its last value:
      // one row may be changed only once per statement.
      const rows = lastPerKey(evidence).map((item) => [item.key, ...evidenceColumns(item)]);
      const column = (index: number) => rows.map((row) => row[index] ?? null);
      await pool.query(
        `INSERT INTO sb_profiles (user_id, fact_key, value, hits, session_id, turn_id, first_seen, updated_at)
         SELECT $1, e.fact_key, e.value, 1, e.session_id, e.turn_id, e.first_seen, e.updated_at
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS e(fact_key, value, session_id, turn_id, first_seen, updated_at)
         ON CONFLICT (user_id, fact_key) DO UPDATE SET ${PROFILE_UPSERT_SET}`,
        [userId, column(0), column(1), column(2), column(3), column(4), column(5)],
      );
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
      // The A2A server's tasks run for the user: their history holds the user's messages.
      const { taskOwner, userId: plainUser } = a2aTaskUserOf(userId);
      await client.query("DELETE FROM sb_a2a_tasks WHERE owner = $1 AND body::jsonb #>> '{metadata,user_id}' = $2", [taskOwner, plainUser]);
      // Every checkpoint thread of the owner starts with its prefix, and no other owner's does.
      const prefix = checkpointThreadPrefix(userId);
      for (const table of ['checkpoint_writes', 'checkpoint_blobs', 'checkpoints']) {
        await client.query(`DELETE FROM ${table} WHERE left(thread_id, length($1)) = $1`, [prefix]);
      }
      return { sessions: rowCount ?? 0 };
    });
}
