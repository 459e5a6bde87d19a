/**
 * Sessions, turns and the append-only transcript on SQLite. Each write is
 * atomic (its own savepoint in the connection's group commit,
 * `sqlite-write-group.ts`), so a crash leaves either the whole turn start
 * (turn row + user row) or nothing, and either the whole finish (answer row +
 * outcome) or none. The session's lease (`sb_leases`, sqlite-leases.ts) is
 * taken in the start's write and let go of in the finish's
 * (`LeaseStore.withTranscript`).
 */
import type Database from 'better-sqlite3';
import type { SessionAccess, StoredMessage, TranscriptStore, TurnFinish, TurnRecord, TurnStart } from '../types.js';
import { messageFromRow, turnFromRow, type MessageRow, type TurnRow } from '../rows.js';
import { tenantOfOwner } from '../owner-key.js';
import { writeGroupOf } from './sqlite-write-group.js';
import { SQLITE_FREE_LEASE, SQLITE_TAKE_LEASE } from './sqlite-leases.js';
import { listTurnRecordsSql, turnRecordColumns, turnRecordFromRow, type TurnRecordRow } from '../turn-record-rows.js';

/** SQLite-backed transcript over an open, migrated connection (`now`: the lease clock, as the lease store's). */
export function createSqliteTranscript(db: Database.Database, now: () => number = Date.now): TranscriptStore {
  const group = writeGroupOf(db);
  const statements = {
    takeLease: db.prepare<[string, string, number, number, string]>(SQLITE_TAKE_LEASE),
    freeLease: db.prepare<[string, string]>(SQLITE_FREE_LEASE),
    owned: db.prepare<[string, string], { found: number }>('SELECT 1 AS found FROM sb_sessions WHERE user_id = ? AND session_id = ?'),
    owners: db.prepare<[string], { user_id: string }>('SELECT user_id FROM sb_sessions WHERE session_id = ?'),
    upsertSession: db.prepare(
      `INSERT INTO sb_sessions (user_id, session_id, created_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, session_id) DO UPDATE SET updated_at = excluded.updated_at`,
    ),
    insertTurn: db.prepare(
      `INSERT INTO sb_turns (turn_id, user_id, session_id, status, trace_id, started_at) VALUES (?, ?, ?, 'running', ?, ?)
       ON CONFLICT (turn_id) DO NOTHING`,
    ),
    runningOthers: db.prepare<[string, string, string], { turn_id: string }>(
      `SELECT turn_id FROM sb_turns WHERE user_id = ? AND session_id = ? AND status = 'running' AND turn_id <> ? ORDER BY started_at, turn_id`,
    ),
    closeTurn: db.prepare<[string, string, string]>(`UPDATE sb_turns SET status = ?, finished_at = ? WHERE turn_id = ? AND status = 'running'`),
    maxSeq: db.prepare<[string, string], { max: number | null }>('SELECT MAX(seq) AS max FROM sb_messages WHERE user_id = ? AND session_id = ?'),
    insertMessage: db.prepare(
      `INSERT INTO sb_messages (user_id, session_id, seq, turn_id, role, content, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    list: db.prepare<[string, string], MessageRow>(
      'SELECT seq, turn_id, role, content, metadata, created_at FROM sb_messages WHERE user_id = ? AND session_id = ? ORDER BY seq',
    ),
    turn: db.prepare<[string], TurnRow>('SELECT * FROM sb_turns WHERE turn_id = ?'),
    running: db.prepare<[string, number], TurnRow>(`SELECT * FROM sb_turns WHERE status = 'running' AND started_at < ? ORDER BY started_at LIMIT ?`),
    insertEvent: db.prepare('INSERT INTO sb_events (turn_id, seq, data, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
    setRecord: db.prepare<[string, string, string, string, string]>('UPDATE sb_turns SET tenant = ?, outcome = ?, agents = ?, record = ? WHERE turn_id = ?'),
    oneRecord: db.prepare<[string, string], TurnRecordRow>('SELECT record, started_at FROM sb_turns WHERE turn_id = ? AND tenant = ? AND record IS NOT NULL'),
    latest: db.prepare<[string, string], TurnRow>(
      'SELECT * FROM sb_turns WHERE user_id = ? AND session_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1',
    ),
  };

  const appendRow = (userId: string, sessionId: string, turnId: string, role: StoredMessage['role'], content: string, metadata: Record<string, unknown>, createdAt: string) => {
    const seq = (statements.maxSeq.get(userId, sessionId)?.max ?? 0) + 1;
    statements.insertMessage.run(userId, sessionId, seq, turnId, role, content, JSON.stringify(metadata), createdAt);
  };

  /** The interrupted turns, or undefined when the session's lease (`start.lease`) is another holder's: then nothing is written. */
  const begin = db.transaction((start: TurnStart): string[] | undefined => {
    if (start.lease) {
      const at = now();
      const { key, holder, ttlMs } = start.lease;
      if (statements.takeLease.run(key, holder, at + ttlMs, at, holder).changes !== 1) return undefined;
    }
    statements.upsertSession.run(start.userId, start.sessionId, start.createdAt, start.createdAt);
    const interrupted: string[] = [];
    for (const { turn_id } of statements.runningOthers.all(start.userId, start.sessionId, start.turnId)) {
      statements.closeTurn.run('interrupted', start.createdAt, turn_id);
      appendRow(start.userId, start.sessionId, turn_id, 'assistant', '', { outcome: 'interrupted' }, start.createdAt);
      interrupted.push(turn_id);
    }
    if (statements.insertTurn.run(start.turnId, start.userId, start.sessionId, start.traceId, start.createdAt).changes === 1) {
      appendRow(start.userId, start.sessionId, start.turnId, 'user', start.query, { trace_id: start.traceId, ...start.metadata }, start.createdAt);
    }
    return interrupted;
  });

  const finish = db.transaction((turnId: string, done: Omit<TurnFinish, 'outcome'> & { outcome: TurnFinish['outcome'] | 'interrupted' }): boolean => {
    // The lease goes whether or not the turn is still open to record.
    if (done.releaseLease) statements.freeLease.run(done.releaseLease.key, done.releaseLease.holder);
    const storedAt = new Date().toISOString();
    for (const event of done.events ?? []) statements.insertEvent.run(turnId, event.seq, event.data, storedAt);
    const turn = statements.turn.get(turnId);
    if (!turn || turn.status !== 'running') return false;
    statements.closeTurn.run(done.outcome, done.createdAt, turnId);
    if (done.record) {
      const columns = turnRecordColumns(done.record);
      statements.setRecord.run(tenantOfOwner(turn.user_id), columns.outcome, columns.agents, columns.record, turnId);
    }
    appendRow(turn.user_id, turn.session_id, turnId, 'assistant', done.content, { trace_id: turn.trace_id, outcome: done.outcome, ...done.metadata }, done.createdAt);
    return true;
  });

  return {
    async sessionAccess(userId, sessionId): Promise<SessionAccess> {
      if (statements.owned.get(userId, sessionId)) return 'owner';
      const tenant = tenantOfOwner(userId);
      return statements.owners.all(sessionId).some((row) => tenantOfOwner(row.user_id) === tenant) ? 'other' : 'none';
    },
    async listMessages(userId, sessionId) {
      return statements.list.all(userId, sessionId).map(messageFromRow);
    },
    async listTurnRecords(query) {
      const { sql, values } = listTurnRecordsSql(query, () => '?', "instr(agents, ',' || ? || ',') > 0");
      return db
        .prepare<unknown[], TurnRecordRow>(sql)
        .all(...values)
        .flatMap((row) => turnRecordFromRow(row) ?? []);
    },
    async getTurnRecord(tenant, turnId) {
      return turnRecordFromRow(statements.oneRecord.get(turnId, tenant));
    },
    async beginTurn(start) {
      // Written at once (the turn's first frame need not wait for the commit at the end of this loop turn); the
      // turn waits for `durable` before it goes on, and the answer's write is durable before `done` is sent.
      const interrupted = group.writeAhead(() => begin(start));
      if (interrupted === undefined) return { interrupted: [], leaseTaken: false };
      return { interrupted, ...(start.lease ? { leaseTaken: true } : {}), durable: group.committed() };
    },
    async finishTurn(turnId, done) {
      return group.write(() => finish(turnId, done));
    },
    async getTurn(turnId): Promise<TurnRecord | undefined> {
      const row = statements.turn.get(turnId);
      return row ? turnFromRow(row) : undefined;
    },
    async latestTurn(userId, sessionId) {
      const row = statements.latest.get(userId, sessionId);
      return row ? turnFromRow(row) : undefined;
    },
    async runningTurns(startedBefore, limit) {
      return statements.running.all(startedBefore, limit).map(turnFromRow);
    },
    async interruptTurn(turnId, at) {
      return group.write(() => finish(turnId, { content: '', outcome: 'interrupted', createdAt: at }));
    },
  };
}

