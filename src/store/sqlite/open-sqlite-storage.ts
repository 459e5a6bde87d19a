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
import { readPlainCheckpoints } from '../checkpoint-serde.js';
import type { Storage } from '../types.js';
import { createSqliteLeases, createSqliteKeyValue } from './sqlite-leases.js';
import { createSqliteEvents, createSqliteRetention, createSqliteTasks } from './sqlite-records.js';
import { migrateSqlite } from './sqlite-schema.js';
import { createSqliteTranscript } from './sqlite-transcript.js';
import { createSqliteTurnHistory } from './sqlite-turn-history.js';
import { createSqliteForgetUser, createSqliteProfiles } from './sqlite-profiles.js';
import { createSqliteA2aTasks } from './sqlite-a2a-tasks.js';
import { writeGroupOf } from './sqlite-write-group.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

/** Opens (creating if needed) the SQLite file, or an in-memory database for `:memory:`. */
export function openSqliteStorage(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrateSqlite(db);
  // WAL checkpoints run in a worker thread, not inside the commits on the event loop (decision 0060).
  const walCheckpointer = path === ':memory:' ? undefined : startWalCheckpointer(db, path);
  const checkpointer = readPlainCheckpoints(new SqliteSaver(db));
  const deleteOlderThan = createSqliteRetention(db);
  // The checkpointer creates its tables on first use: until then there is nothing to prune. Once they exist,
  // the statements are prepared once and every turn's pruning is two statements, each keeping the thread's newest
  // checkpoint (none kept, none deleted: `<> NULL` holds for no row). They need no savepoint of their own: stopped
  // between the two, the writes of deleted checkpoints are left for the next pruning, and nothing else changes.
  let pruneStatements: { prune(threadId: string): void } | undefined;
  const pruning = () => {
    if (pruneStatements) return pruneStatements;
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('checkpoints', 'writes')")
      .all()
      .map((row) => row.name);
    if (!tables.includes('checkpoints') || !tables.includes('writes')) return undefined;
    const newest = "(SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1)";
    const dropCheckpoints = db.prepare<[string, string]>(`DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id <> ${newest}`);
    const dropWrites = db.prepare<[string, string]>(`DELETE FROM writes WHERE thread_id = ? AND checkpoint_id <> ${newest}`);
    pruneStatements = {
      prune: (threadId: string) => {
        dropCheckpoints.run(threadId, threadId);
        dropWrites.run(threadId, threadId);
      },
    };
    return pruneStatements;
  };
  let closed = false;
  return {
    kind: 'sqlite',
    createRateLimiter: createMemoryRateLimiter,
    transcript: createSqliteTranscript(db),
    events: createSqliteEvents(db),
    tasks: createSqliteTasks(db),
    history: createSqliteTurnHistory(db),
    leases: createSqliteLeases(db),
    signals: createLocalSignalBus(),
    kv: createSqliteKeyValue(db),
    profiles: createSqliteProfiles(db),
    a2aTasks: createSqliteA2aTasks(db),
    forgetUser: createSqliteForgetUser(db),
    checkpointer,
    async pruneCheckpoints(threadId: string) {
      const statements = pruning();
      if (statements) await writeGroupOf(db).write(() => statements.prune(threadId));
    },
    deleteOlderThan,
    async close() {
      if (closed) return;
      closed = true;
      writeGroupOf(db).commit();
      if (walCheckpointer) {
        await walCheckpointer.stop();
        // A write that came while the worker stopped.
        writeGroupOf(db).commit();
      }
      db.close();
    },
  };
}
