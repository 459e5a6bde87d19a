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
  /**
   * Whether `userId` has a session with this id (`owner`), only other users do
   * (`other`), or nobody (`none`). Session ids are namespaced per user: two
   * users may use the same id without seeing each other's turns.
   */
  sessionAccess(userId: string, sessionId: string): Promise<'owner' | 'other' | 'none'>;
  /** Appends messages; a row with an existing (user, session, seq) is ignored (idempotent). */
  appendMessages(userId: string, sessionId: string, messages: StoredMessage[]): Promise<void>;
  /** The session's transcript in order (copies). */
  listMessages(userId: string, sessionId: string): Promise<StoredMessage[]>;
  /** Next free sequence number of a session. */
  nextSeq(userId: string, sessionId: string): Promise<number>;
  close(): Promise<void>;
}
