/**
 * SQLite profile facts and the right to be forgotten (`forgetUser`): the
 * user's facts, sessions, transcript, turns, events, task records and
 * checkpoints go in one transaction.
 */
import type Database from 'better-sqlite3';
import { evidenceColumns, factFromRow, lastPerKey, PROFILE_UPSERT_SET, type ProfileRow } from '../profile-rows.js';
import { a2aTaskUserOf, checkpointThreadPrefix } from '../owner-key.js';
import type { ProfileFact, ProfileStore } from '../types.js';
import { writeGroupOf } from './sqlite-write-group.js';

/** The SQLite `ProfileStore`. */
export function createSqliteProfiles(db: Database.Database): ProfileStore {
  const list = db.prepare<[string], ProfileRow>('SELECT fact_key, value, hits, session_id, turn_id, first_seen, updated_at FROM sb_profiles WHERE user_id = ? ORDER BY fact_key');
  const upsert = db.prepare(
    `INSERT INTO sb_profiles (user_id, fact_key, value, hits, session_id, turn_id, first_seen, updated_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?)
     ON CONFLICT (user_id, fact_key) DO UPDATE SET ${PROFILE_UPSERT_SET}`,
  );
  const remove = db.prepare<[string]>('DELETE FROM sb_profiles WHERE user_id = ?');
  return {
    async get(userId) {
      return list.all(userId).flatMap((row): ProfileFact[] => {
        const fact = factFromRow(row);
        return fact ? [fact] : [];
      });
    },
    async record(userId, evidence) {
      await writeGroupOf(db).write(
        db.transaction(() => {
          for (const item of lastPerKey(evidence)) upsert.run(userId, item.key, ...evidenceColumns(item));
        }),
      );
    },
    async delete(userId) {
      await writeGroupOf(db).write(() => remove.run(userId));
    },
  };
}

/** Deletes the user's profile and every session of the user; returns the sessions deleted. */
export function createSqliteForgetUser(db: Database.Database): (userId: string) => Promise<{ sessions: number }> {
  return async (userId) => {
    const tables = new Set(db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((row) => row.name));
    const threadPrefix = checkpointThreadPrefix(userId);
    let sessions = 0;
    const forget = db.transaction(() => {
      db.prepare('DELETE FROM sb_profiles WHERE user_id = ?').run(userId);
      db.prepare('DELETE FROM sb_events WHERE turn_id IN (SELECT turn_id FROM sb_turns WHERE user_id = ?)').run(userId);
      db.prepare('DELETE FROM sb_tasks WHERE user_id = ?').run(userId);
      db.prepare('DELETE FROM sb_turns WHERE user_id = ?').run(userId);
      db.prepare('DELETE FROM sb_messages WHERE user_id = ?').run(userId);
      sessions = db.prepare('DELETE FROM sb_sessions WHERE user_id = ?').run(userId).changes;
      // The A2A server's tasks run for the user: their history holds the user's messages.
      const { taskOwner, userId: plainUser } = a2aTaskUserOf(userId);
      db.prepare("DELETE FROM sb_a2a_tasks WHERE owner = ? AND json_extract(body, '$.metadata.user_id') = ?").run(taskOwner, plainUser);
      // Every checkpoint thread of the owner starts with its prefix, and no other owner's does.
      for (const table of ['checkpoints', 'writes']) {
        if (tables.has(table)) db.prepare(`DELETE FROM ${table} WHERE substr(thread_id, 1, ?) = ?`).run(threadPrefix.length, threadPrefix);
      }
    });
    await writeGroupOf(db).write(forget);
    return { sessions };
  };
}
