/**
 * Recorded turns read back on SQLite, one page per call: the turn rows with
 * the user's row of each (one query), then, when asked, the page's events
 * (one more query). Newest first, so `--limit N` is the N latest turns.
 */
import type Database from 'better-sqlite3';
import type { RecordedTurn, RecordedTurnQuery, StoredEvent, TurnHistoryReader } from '../types.js';
import { recordedTurnFromRow, tenantPrefix, type RecordedTurnRow } from '../turn-history-rows.js';

const SELECT = `SELECT t.turn_id, t.user_id, t.session_id, t.status, t.trace_id, t.started_at, t.finished_at,
         m.content AS query, m.metadata AS query_metadata
  FROM sb_turns t LEFT JOIN sb_messages m ON m.turn_id = t.turn_id AND m.role = 'user'`;

/** The reader over an open, migrated connection. */
export function createSqliteTurnHistory(db: Database.Database): TurnHistoryReader {
  const pages = new Map<string, Database.Statement>();
  const statementFor = (query: RecordedTurnQuery): { statement: Database.Statement; params: unknown[] } => {
    const where = [`t.status <> 'running'`];
    const params: unknown[] = [];
    if (query.since !== undefined) {
      where.push('t.started_at >= ?');
      params.push(query.since);
    }
    if (query.tenant !== undefined) {
      const prefix = tenantPrefix(query.tenant);
      if (prefix === undefined) where.push(`instr(t.user_id, '/') = 0`);
      else {
        where.push('substr(t.user_id, 1, ?) = ?');
        params.push(prefix.length, prefix);
      }
    }
    if (query.before) {
      where.push('(t.started_at < ? OR (t.started_at = ? AND t.turn_id < ?))');
      params.push(query.before.started_at, query.before.started_at, query.before.turn_id);
    }
    params.push(Math.max(1, Math.floor(query.limit)));
    const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY t.started_at DESC, t.turn_id DESC LIMIT ?`;
    let statement = pages.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      pages.set(sql, statement);
    }
    return { statement, params };
  };
  const eventsOf = db.prepare<[string], { turn_id: string; seq: number; data: string }>(
    'SELECT turn_id, seq, data FROM sb_events WHERE turn_id IN (SELECT value FROM json_each(?)) ORDER BY turn_id, seq',
  );
  const next = db.prepare<[string, string, string, string, string], RecordedTurnRow>(
    `${SELECT} WHERE t.user_id = ? AND t.session_id = ? AND (t.started_at > ? OR (t.started_at = ? AND t.turn_id > ?))
     ORDER BY t.started_at, t.turn_id LIMIT 1`,
  );
  const one = db.prepare<[string], { user_id: string; session_id: string; started_at: string }>('SELECT user_id, session_id, started_at FROM sb_turns WHERE turn_id = ?');

  const eventsByTurn = (turnIds: readonly string[]): Map<string, StoredEvent[]> => {
    const byTurn = new Map<string, StoredEvent[]>(turnIds.map((turnId) => [turnId, []]));
    if (turnIds.length > 0) for (const row of eventsOf.all(JSON.stringify(turnIds))) byTurn.get(row.turn_id)?.push({ seq: row.seq, data: row.data });
    return byTurn;
  };
  const withEvents = (turns: RecordedTurn[]): RecordedTurn[] => {
    const byTurn = eventsByTurn(turns.map((turn) => turn.turn_id));
    for (const turn of turns) turn.events = byTurn.get(turn.turn_id) ?? [];
    return turns;
  };

  return {
    async page(query) {
      const { statement, params } = statementFor(query);
      const turns = (statement.all(...params) as RecordedTurnRow[]).map(recordedTurnFromRow);
      return query.withEvents ? withEvents(turns) : turns;
    },
    async nextInSession(turnId) {
      const turn = one.get(turnId);
      if (!turn) return undefined;
      const row = next.get(turn.user_id, turn.session_id, turn.started_at, turn.started_at, turnId);
      return row ? withEvents([recordedTurnFromRow(row)])[0] : undefined;
    },
    async eventsOf(turnIds) {
      return eventsByTurn(turnIds);
    },
  };
}
