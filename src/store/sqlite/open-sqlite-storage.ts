/**
 * SQLite storage (the embedded default): our tables and the LangGraph
 * checkpointer share one better-sqlite3 connection and one file. Signals stay
 * in this process; leases and key-value entries live in the file, so two
 * processes on one file still never run two turns of a session at once.
 */
import { createMemoryRateLimiter } from '../rate-limiter.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { createLocalSignalBus } from '../local-signal-bus.js';
import type { Storage } from '../types.js';
import { createSqliteLeases, createSqliteKeyValue } from './sqlite-leases.js';
import { createSqliteEvents, createSqliteRetention, createSqliteTasks } from './sqlite-records.js';
import { migrateSqlite } from './sqlite-schema.js';
import { createSqliteTranscript } from './sqlite-transcript.js';
import { createSqliteForgetUser, createSqliteProfiles } from './sqlite-profiles.js';

/** Opens (creating if needed) the SQLite file, or an in-memory database for `:memory:`. */
export function openSqliteStorage(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrateSqlite(db);
  const checkpointer = new SqliteSaver(db);
  const deleteOlderThan = createSqliteRetention(db);
  let closed = false;
  return {
    kind: 'sqlite',
    createRateLimiter: createMemoryRateLimiter,
    transcript: createSqliteTranscript(db),
    events: createSqliteEvents(db),
    tasks: createSqliteTasks(db),
    leases: createSqliteLeases(db),
    signals: createLocalSignalBus(),
    kv: createSqliteKeyValue(db),
    profiles: createSqliteProfiles(db),
    forgetUser: createSqliteForgetUser(db),
    checkpointer,
    async pruneCheckpoints(threadId: string) {
      const tables = db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')")
        .all()
        .map((row) => row.name);
      if (!tables.includes('checkpoints')) return;
      const newest = db
        .prepare<[string], { checkpoint_id: string }>(
          "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
        )
        .get(threadId);
      if (!newest) return;
      db.prepare('DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id <> ?').run(threadId, newest.checkpoint_id);
      if (tables.includes('writes')) {
        db.prepare('DELETE FROM writes WHERE thread_id = ? AND checkpoint_id <> ?').run(threadId, newest.checkpoint_id);
      }
    },
    deleteOlderThan,
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
