/**
 * SQLite storage (the default): the append-only message log and the LangGraph
 * checkpointer share one better-sqlite3 connection and one file.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { MessageStore, StoredMessage } from './types.js';
import { safeJsonParse } from '../util/safe-json.js';

/** Everything a supervisor needs from storage. */
export interface Storage {
  readonly messages: MessageStore;
  readonly checkpointer: BaseCheckpointSaver;
  /** Drops all checkpoints of a thread but the newest (keeps the file bounded). */
  pruneCheckpoints(threadId: string): Promise<void>;
  close(): Promise<void>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sb_sessions (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id)
);
CREATE INDEX IF NOT EXISTS sb_sessions_by_id ON sb_sessions (session_id);
CREATE TABLE IF NOT EXISTS sb_messages (
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  metadata TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, session_id, seq)
);
`;

interface MessageRow {
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  metadata: string | null;
  created_at: string;
}

/** SQLite-backed `MessageStore` over an open connection. */
export class SqliteMessageStore implements MessageStore {
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.statements = {
      owned: db.prepare<[string, string], { found: number }>('SELECT 1 AS found FROM sb_sessions WHERE user_id = ? AND session_id = ?'),
      anyUser: db.prepare<[string], { found: number }>('SELECT 1 AS found FROM sb_sessions WHERE session_id = ? LIMIT 1'),
      upsertSession: db.prepare(
        `INSERT INTO sb_sessions (session_id, user_id, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at`,
      ),
      insert: db.prepare(
        `INSERT OR IGNORE INTO sb_messages (user_id, session_id, seq, role, content, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      list: db.prepare<[string, string], MessageRow>(
        'SELECT seq, role, content, metadata, created_at FROM sb_messages WHERE user_id = ? AND session_id = ? ORDER BY seq',
      ),
      maxSeq: db.prepare<[string, string], { max: number | null }>(
        'SELECT MAX(seq) AS max FROM sb_messages WHERE user_id = ? AND session_id = ?',
      ),
    };
  }

  async sessionAccess(userId: string, sessionId: string): Promise<'owner' | 'other' | 'none'> {
    if (this.statements.owned.get(userId, sessionId)) return 'owner';
    return this.statements.anyUser.get(sessionId) ? 'other' : 'none';
  }

  async appendMessages(userId: string, sessionId: string, messages: StoredMessage[]): Promise<void> {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      this.statements.upsertSession.run(sessionId, userId, now, now);
      for (const message of messages) {
        this.statements.insert.run(
          userId,
          sessionId,
          message.seq,
          message.role,
          message.content,
          message.metadata === undefined ? null : JSON.stringify(message.metadata),
          message.created_at,
        );
      }
    })();
  }

  async listMessages(userId: string, sessionId: string): Promise<StoredMessage[]> {
    return this.statements.list.all(userId, sessionId).map((row) => {
      const message: StoredMessage = { seq: row.seq, role: row.role, content: row.content, created_at: row.created_at };
      if (row.metadata !== null) {
        const parsed = safeJsonParse(row.metadata);
        if (parsed.ok && parsed.value && typeof parsed.value === 'object') message.metadata = parsed.value as Record<string, unknown>;
      }
      return message;
    });
  }

  async nextSeq(userId: string, sessionId: string): Promise<number> {
    return (this.statements.maxSeq.get(userId, sessionId)?.max ?? 0) + 1;
  }

  async close(): Promise<void> {
    // The connection is owned by the Storage that created this store.
  }
}

/** Opens (creating if needed) the SQLite file, or an in-memory database for `:memory:`. */
export function openSqliteStorage(path: string): Storage {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  const messages = new SqliteMessageStore(db);
  const checkpointer = new SqliteSaver(db);
  let closed = false;
  return {
    messages,
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
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

/** Parses `DATABASE_URL` (`sqlite:<path>`; default `sqlite:./data/switchboard.db`). */
export function openStorageFromUrl(url = 'sqlite:./data/switchboard.db'): Storage {
  if (url.startsWith('sqlite:')) return openSqliteStorage(url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') || ':memory:');
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    throw new Error('DATABASE_URL: the Postgres backend is not available in this version; use sqlite:<path>');
  }
  throw new Error(`DATABASE_URL: unsupported scheme in "${url.replace(/\/\/[^@]*@/, '//***@')}"; expected sqlite:<path>`);
}
