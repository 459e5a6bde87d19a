/**
 * Storage interface. Only `src/store/` touches SQL; SQLite is the default,
 * Postgres implements the same interface later.
 */

/** One row of the append-only transcript. */
export interface StoredMessage {
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  created_at: string;
  metadata?: Record<string, unknown>;
}

export interface MessageStore {
  /** The user id that owns the session, or null when the session does not exist. */
  sessionOwner(sessionId: string): Promise<string | null>;
  /** Appends messages; a row with an existing (user, session, seq) is ignored (idempotent). */
  appendMessages(userId: string, sessionId: string, messages: StoredMessage[]): Promise<void>;
  /** The session's transcript in order (copies). */
  listMessages(userId: string, sessionId: string): Promise<StoredMessage[]>;
  /** Next free sequence number of a session. */
  nextSeq(userId: string, sessionId: string): Promise<number>;
  close(): Promise<void>;
}
