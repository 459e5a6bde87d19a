/**
 * Postgres profile facts and the right to be forgotten (`forgetUser`), each
 * write in one transaction.
 */
import type pg from 'pg';
import { evidenceColumns, factFromRow, lastPerKey, type ProfileRow } from '../profile-rows.js';
import { a2aTaskUserOf, checkpointThreadPrefix } from '../owner-key.js';
import type { ProfileFact, ProfileStore } from '../types.js';
import type { ProfileUpsert, WriteBehind } from './pg-write-behind.js';
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

/**
 * Profile rows read with a turn's start: the user's profile as it was then, read by the turns of the user
 * that start within a few seconds instead of a read of their own (every session of a user shares it). A
 * write of the user's rows is applied to them as the statement will apply it (`wrote`), so they stay what a
 * read after the write would return; a read begun before a write is not kept (`mark`).
 */
export interface PrefetchedProfiles {
  /** Where profiles stand now: what `put` is given for rows read from here on. */
  mark(): ProfileMark;
  /** Keeps rows read since `mark`, unless the user's profile was written to (or forgotten) meanwhile. */
  put(userId: string, rows: ProfileRow[], mark: ProfileMark): void;
  take(userId: string): ProfileRow[] | undefined;
  /** The user's profile is written to: kept rows take the upserts as the statement will (`PROFILE_UPSERT_SET`). */
  wrote(userId: string, upserts: readonly ProfileUpsert[]): void;
  forget(userId: string): void;
}

/** `rows` after the upserts, by the rule of `PROFILE_UPSERT_SET`: the same value again raises `hits`, another replaces it. */
function upserted(rows: readonly ProfileRow[], upserts: readonly ProfileUpsert[]): ProfileRow[] {
  const byKey = new Map(rows.map((row) => [row.fact_key, { ...row }]));
  for (const upsert of upserts) {
    const old = byKey.get(upsert.key);
    const same = old !== undefined && old.value === upsert.value;
    byKey.set(upsert.key, {
      fact_key: upsert.key,
      value: upsert.value,
      hits: same ? old.hits + 1 : 1,
      session_id: upsert.sessionId,
      turn_id: upsert.turnId,
      first_seen: same ? old.first_seen : upsert.firstSeen,
      updated_at: upsert.updatedAt,
    });
  }
  return [...byKey.values()].sort((left, right) => (left.fact_key < right.fact_key ? -1 : left.fact_key > right.fact_key ? 1 : 0));
}

/** The number of profile writes so far, and when it was read. */
export interface ProfileMark {
  writes: number;
  at: number;
}

export function createPrefetchedProfiles(maxAgeMs = 5000): PrefetchedProfiles {
  const byUser = new Map<string, { rows: ProfileRow[]; at: number }>();
  // Each user's last write, numbered; kept as long as a read begun before it can still be put.
  let writes = 0;
  const lastWrite = new Map<string, { write: number; at: number }>();
  const prune = (now: number) => {
    for (const [user, entry] of byUser) if (now - entry.at > maxAgeMs) byUser.delete(user);
    for (const [user, entry] of lastWrite) if (now - entry.at > maxAgeMs) lastWrite.delete(user);
  };
  return {
    mark: () => ({ writes, at: Date.now() }),
    put(userId, rows, mark) {
      const now = Date.now();
      prune(now);
      // A read that took longer than a write is remembered may have missed one: not kept.
      if (now - mark.at > maxAgeMs || (lastWrite.get(userId)?.write ?? 0) > mark.writes) return;
      byUser.set(userId, { rows, at: now });
    },
    take(userId) {
      const entry = byUser.get(userId);
      if (entry && Date.now() - entry.at <= maxAgeMs) return entry.rows.map((row) => ({ ...row }));
      byUser.delete(userId);
      return undefined;
    },
    wrote(userId, upserts) {
      const entry = byUser.get(userId);
      if (entry) entry.rows = upserted(entry.rows, upserts);
      lastWrite.set(userId, { write: ++writes, at: Date.now() });
    },
    forget(userId) {
      byUser.delete(userId);
      lastWrite.set(userId, { write: ++writes, at: Date.now() });
    },
  };
}

/**
 * The Postgres `ProfileStore`: a write waits for the next statement of a turn
 * (the checkpoint after a business turn's summary) and rides in front of it
 * (pg-write-behind.ts); reads of a user with rows waiting write them first.
 */
export function createPostgresProfiles(pool: pg.Pool, writes: WriteBehind, prefetched: PrefetchedProfiles): ProfileStore {
  return {
    async get(userId) {
      // Rows read with a turn's start need no write first: none of the user's were waiting then, and any
      // queued since are in them already (`record`).
      let rows = prefetched.take(userId);
      if (!rows) {
        if (writes.profilesPending(userId)) await writes.flush();
        rows = await readProfile(pool, userId);
      }
      return rows.flatMap((row): ProfileFact[] => {
        const fact = factFromRow(row);
        return fact ? [fact] : [];
      });
    },
    async record(userId, evidence) {
      if (evidence.length === 0) return;
      // Atomic with the statement that carries it. A key twice in one call counts once, its last value.
      const upserts = lastPerKey(evidence).map((item): ProfileUpsert => {
        const [value, sessionId, turnId, firstSeen, updatedAt] = evidenceColumns(item);
        return { userId, key: item.key, value, sessionId, turnId, firstSeen, updatedAt };
      });
      // The rows read ahead stay as current as a read after this write (the turns of the user's other sessions read them).
      prefetched.wrote(userId, upserts);
      await writes.profiles(upserts);
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
