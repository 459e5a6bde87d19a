/**
 * Recorded turns read back on Postgres, one page per call: the turn rows with
 * the user's row of each (one round trip), then, when asked, the page's
 * events (one more). Newest first, so `--limit N` is the N latest turns.
 */
import type pg from 'pg';
import type { RecordedTurn, StoredEvent, TurnHistoryReader } from '../types.js';
import { recordedTurnFromRow, tenantPrefix, type RecordedTurnRow } from '../turn-history-rows.js';
import type { WriteBehind } from './pg-write-behind.js';

const SELECT = `SELECT t.turn_id, t.user_id, t.session_id, t.status, t.trace_id, t.started_at, t.finished_at,
         m.content AS query, m.metadata AS query_metadata
  FROM sb_turns t LEFT JOIN sb_messages m ON m.turn_id = t.turn_id AND m.role = 'user'`;

/** The reader over the storage's pool. */
export function createPostgresTurnHistory(pool: pg.Pool, writes: WriteBehind): TurnHistoryReader {
  const eventsByTurn = async (turnIds: readonly string[]): Promise<Map<string, StoredEvent[]>> => {
    const byTurn = new Map<string, StoredEvent[]>(turnIds.map((turnId) => [turnId, []]));
    if (turnIds.length === 0) return byTurn;
    await writes.flush();
    const { rows } = await pool.query<{ turn_id: string; seq: number; data: string }>(
      'SELECT turn_id, seq, data FROM sb_events WHERE turn_id = ANY($1::text[]) ORDER BY turn_id, seq',
      [turnIds],
    );
    for (const row of rows) byTurn.get(row.turn_id)?.push({ seq: Number(row.seq), data: row.data });
    return byTurn;
  };
  const withEvents = async (turns: RecordedTurn[]): Promise<RecordedTurn[]> => {
    const byTurn = await eventsByTurn(turns.map((turn) => turn.turn_id));
    for (const turn of turns) turn.events = byTurn.get(turn.turn_id) ?? [];
    return turns;
  };
  return {
    async page(query) {
      const where = [`t.status <> 'running'`];
      const params: unknown[] = [];
      const param = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      if (query.since !== undefined) where.push(`t.started_at >= ${param(query.since)}`);
      if (query.tenant !== undefined) {
        const prefix = tenantPrefix(query.tenant);
        where.push(prefix === undefined ? `strpos(t.user_id, '/') = 0` : `left(t.user_id, ${param(prefix.length)}) = ${param(prefix)}`);
      }
      if (query.before) {
        const at = param(query.before.started_at);
        where.push(`(t.started_at < ${at} OR (t.started_at = ${at} AND t.turn_id < ${param(query.before.turn_id)}))`);
      }
      const limit = param(Math.max(1, Math.floor(query.limit)));
      // The page's turns first, then each one's user row by its index: a join the planner may run as a scan of the
      // whole transcript per turn when its statistics are stale (right after a bulk load: 4 s a page instead of 15 ms).
      const { rows } = await pool.query<RecordedTurnRow>(
        `SELECT t.turn_id, t.user_id, t.session_id, t.status, t.trace_id, t.started_at, t.finished_at, m.content AS query, m.metadata AS query_metadata
         FROM (SELECT * FROM sb_turns t WHERE ${where.join(' AND ')} ORDER BY t.started_at DESC, t.turn_id DESC LIMIT ${limit}) t
         LEFT JOIN LATERAL (SELECT content, metadata FROM sb_messages m WHERE m.turn_id = t.turn_id AND m.role = 'user' LIMIT 1) m ON true
         ORDER BY t.started_at DESC, t.turn_id DESC`,
        params,
      );
      const turns = rows.map(recordedTurnFromRow);
      return query.withEvents ? withEvents(turns) : turns;
    },
    async nextInSession(turnId) {
      const { rows } = await pool.query<RecordedTurnRow>(
        `${SELECT} JOIN sb_turns o ON o.turn_id = $1
         WHERE t.user_id = o.user_id AND t.session_id = o.session_id AND (t.started_at > o.started_at OR (t.started_at = o.started_at AND t.turn_id > o.turn_id))
         ORDER BY t.started_at, t.turn_id LIMIT 1`,
        [turnId],
      );
      const row = rows[0];
      return row ? (await withEvents([recordedTurnFromRow(row)]))[0] : undefined;
    },
    eventsOf: eventsByTurn,
  };
}
