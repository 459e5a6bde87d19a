/**
 * Postgres profile facts and the right to be forgotten (`forgetUser`), each
 * write in one transaction.
 */
import { createTakeOnce } from '../../util/index.js';
import type pg from 'pg';
import { evidenceColumns, factFromRow, lastPerKey, type ProfileRow } from '../profile-rows.js';
import { a2aTaskUserOf, checkpointThreadPrefix } from '../owner-key.js';
import type { ProfileFact, ProfileStore } from '../types.js';
import type { WriteBehind } from './pg-write-behind.js';
import type { PrefetchedCheckpoints } from './pg-checkpoint-prefetch.js';

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

/** A user's profile rows as one JSON array (`$2` is the user), for the turn's start. */
export const PROFILE_ROWS_JSON = `(SELECT coalesce(json_agg(p ORDER BY p.fact_key), '[]') FROM (SELECT fact_key, value, hits, session_id, turn_id, first_seen, updated_at FROM sb_profiles WHERE user_id = $2) p)`;

/** Profile rows read with a turn's start, taken once by the turn's profile read within a few seconds. */
export interface PrefetchedProfiles {
  put(userId: string, rows: ProfileRow[]): void;
  take(userId: string): ProfileRow[] | undefined;
  forget(userId: string): void;
}

export function createPrefetchedProfiles(maxAgeMs = 5000): PrefetchedProfiles {
  return createTakeOnce<ProfileRow[]>(maxAgeMs);
}

/**
 * The Postgres `ProfileStore`: a write waits for the next statement of a turn
 * (the checkpoint after a business turn's summary) and rides in front of it
 * (pg-write-behind.ts); reads of a user with rows waiting write them first.
 */
export function createPostgresProfiles(pool: pg.Pool, writes: WriteBehind, prefetched: PrefetchedProfiles): ProfileStore {
  return {
    async get(userId) {
      if (writes.profilesPending(userId)) await writes.flush();
      const rows = prefetched.take(userId) ?? (await readProfile(pool, userId));
      return rows.flatMap((row): ProfileFact[] => {
        const fact = factFromRow(row);
        return fact ? [fact] : [];
      });
    },
    async record(userId, evidence) {
      if (evidence.length === 0) return;
      prefetched.forget(userId);
      // Atomic with the statement that carries it. A key twice in one call counts once, its last value.
      await writes.profiles(
        lastPerKey(evidence).map((item) => {
          const [value, sessionId, turnId, firstSeen, updatedAt] = evidenceColumns(item);
          return { userId, key: item.key, value, sessionId, turnId, firstSeen, updatedAt };
        }),
      );
    },
    async delete(userId) {
      prefetched.forget(userId);
      await writes.flush();
      await pool.query('DELETE FROM sb_profiles WHERE user_id = $1', [userId]);
    },
  };
}

async function readProfile(pool: pg.Pool, userId: string): Promise<ProfileRow[]> {
  const { rows } = await pool.query<ProfileRow>({
    name: 'sb_profile',
    text: 'SELECT fact_key, value, hits, session_id, turn_id, first_seen, updated_at FROM sb_profiles WHERE user_id = $1 ORDER BY fact_key',
    values: [userId],
  });
  return rows;
}

/** Deletes the user's profile and every session of the user; returns the sessions deleted. */
export function createPostgresForgetUser(
  pool: pg.Pool,
  writes: WriteBehind,
  prefetched: PrefetchedProfiles,
  checkpoints: PrefetchedCheckpoints,
): (userId: string) => Promise<{ sessions: number }> {
  return async (userId) => {
    await writes.flush();
    prefetched.forget(userId);
    checkpoints.forgetPrefix(checkpointThreadPrefix(userId));
    return inTransaction(pool, async (client) => {
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
  };
}
