/**
 * Sessions, turns and the transcript on Postgres. A turn's start and its
 * finish are each one round trip (the `sb_begin_turn` / `sb_finish_turn`
 * functions of the first migration), atomic like the SQLite transactions.
 */
import type pg from 'pg';
import { messageFromRow, turnFromRow, type MessageRow, type TurnRow } from '../rows.js';
import { tenantOfOwner } from '../owner-key.js';
import type { SessionAccess, TranscriptStore } from '../types.js';
import { listTurnRecordsSql, turnRecordColumns, turnRecordFromRow, type TurnRecordRow } from '../turn-record-rows.js';
import type { WriteBehind } from './pg-write-behind.js';
import { PROFILE_ROWS_JSON, type PrefetchedProfiles } from './pg-profiles.js';
import type { ProfileRow } from '../profile-rows.js';
import { checkpointColumns, type CheckpointColumnsRow, type PrefetchedCheckpoints } from './pg-checkpoint-prefetch.js';
import { checkpointThread } from '../owner-key.js';

/** The turn's start, with the user's profile rows and the newest checkpoint of the turn's thread (`$8`). */
const BEGIN_TURN = beginStatement('sb_begin_turn($1, $2, $3, $4, $5, $6, $7)', '$8');
/** The same taking the session's lease first (`cut` is NULL and nothing is written when it is held); the thread is `$11`. */
const BEGIN_LEASED_TURN = beginStatement('sb_begin_leased_turn($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', '$11');

function beginStatement(call: string, thread: string): string {
  const checkpoint = checkpointColumns(thread);
  return `SELECT ${call} AS cut, ${PROFILE_ROWS_JSON} AS profile, ${checkpoint.select} ${checkpoint.from}`;
}

const FINISH_TURN = `WITH stored AS (
   INSERT INTO sb_events (turn_id, seq, data, created_at)
   SELECT $1, event.seq, event.data, $8 FROM unnest($6::int[], $7::text[]) AS event (seq, data)
   ON CONFLICT DO NOTHING
 ), released AS (
   DELETE FROM sb_leases WHERE lease_key = $12 AND holder = $13
 )
 SELECT sb_finish_turn_recorded($1, $2, $3, $4, $5, $9, $10, $11) AS finished`;

/**
 * A turn's start and end carry the writes waiting for a statement
 * (pg-write-behind.ts). The start also reads the user's profile rows and the
 * thread's newest checkpoint, which the turn's reads take from `prefetched`
 * and `checkpoints` instead of round trips of their own.
 */
export function createPostgresTranscript(pool: pg.Pool, writes: WriteBehind, prefetched: PrefetchedProfiles, checkpoints: PrefetchedCheckpoints): TranscriptStore {
  return {
    async sessionAccess(userId, sessionId): Promise<SessionAccess> {
      const { rows } = await pool.query<{ user_id: string }>('SELECT user_id FROM sb_sessions WHERE session_id = $1', [sessionId]);
      if (rows.some((row) => row.user_id === userId)) return 'owner';
      const tenant = tenantOfOwner(userId);
      return rows.some((row) => tenantOfOwner(row.user_id) === tenant) ? 'other' : 'none';
    },
    async listMessages(userId, sessionId) {
      const { rows } = await pool.query<MessageRow>(
        'SELECT seq, turn_id, role, content, metadata, created_at FROM sb_messages WHERE user_id = $1 AND session_id = $2 ORDER BY seq',
        [userId, sessionId],
      );
      return rows.map(messageFromRow);
    },
    async listTurnRecords(query) {
      const { sql, values } = listTurnRecordsSql(query, (index) => `$${index}`, "strpos(agents, ',' || ? || ',') > 0");
      const { rows } = await pool.query<TurnRecordRow>(sql, values);
      return rows.flatMap((row) => turnRecordFromRow(row) ?? []);
    },
    async getTurnRecord(tenant, turnId) {
      const { rows } = await pool.query<TurnRecordRow>('SELECT record, started_at FROM sb_turns WHERE turn_id = $1 AND tenant = $2 AND record IS NOT NULL', [turnId, tenant]);
      return turnRecordFromRow(rows[0]);
    },
    async beginTurn(start) {
      const values = [start.turnId, start.userId, start.sessionId, start.query, start.traceId, start.createdAt, JSON.stringify({ trace_id: start.traceId, ...start.metadata })];
      const thread = checkpointThread(start.userId, start.sessionId);
      const { lease } = start;
      // Profile rows of the user riding on this statement are not seen by its own read: then the turn reads them after.
      const profileCurrent = !writes.profilesPending(start.userId);
      const profileMark = prefetched.mark();
      const { rows } = await writes.query<{ cut: string[] | null; profile: ProfileRow[] } & CheckpointColumnsRow>(
        lease
          ? { name: 'sb_begin_leased_turn', text: BEGIN_LEASED_TURN, values: [...values, lease.key, lease.holder, Math.round(lease.ttlMs), thread] }
          : { name: 'sb_begin_turn', text: BEGIN_TURN, values: [...values, thread] },
      );
      if (lease && !rows[0]?.cut) return { interrupted: [], leaseTaken: false };
      if (rows[0]) {
        if (profileCurrent) prefetched.put(start.userId, rows[0].profile, profileMark);
        checkpoints.put(start.userId, start.sessionId, rows[0]);
      }
      return { interrupted: rows[0]?.cut ?? [], ...(lease ? { leaseTaken: true } : {}) };
    },
    async finishTurn(turnId, finish) {
      const events = finish.events ?? [];
      const record = finish.record ? turnRecordColumns(finish.record) : undefined;
      // The last events ride in the same statement, and the session's lease is let go of in it (one round trip, one transaction).
      // Sent once writes carried by other statements are settled: with the finish stored, all the turn queued is.
      const { rows } = await writes.query<{ finished: boolean }>({
        name: 'sb_finish_turn',
        text: FINISH_TURN,
        values: [
          turnId,
          finish.outcome,
          finish.content,
          finish.createdAt,
          JSON.stringify(finish.metadata ?? {}),
          events.map((event) => event.seq),
          events.map((event) => event.data),
          new Date().toISOString(),
          record?.outcome ?? null,
          record?.agents ?? null,
          record?.record ?? null,
          finish.releaseLease?.key ?? null,
          finish.releaseLease?.holder ?? null,
        ],
      }, { afterInFlight: true });
      return rows[0]?.finished === true;
    },
    async getTurn(turnId) {
      const { rows } = await pool.query<TurnRow>('SELECT * FROM sb_turns WHERE turn_id = $1', [turnId]);
      return rows[0] ? turnFromRow(rows[0]) : undefined;
    },
    async latestTurn(userId, sessionId) {
      const { rows } = await pool.query<TurnRow>(
        'SELECT * FROM sb_turns WHERE user_id = $1 AND session_id = $2 ORDER BY started_at DESC, turn_id DESC LIMIT 1',
        [userId, sessionId],
      );
      return rows[0] ? turnFromRow(rows[0]) : undefined;
    },
    async runningTurns(startedBefore, limit) {
      const { rows } = await pool.query<TurnRow>(`SELECT * FROM sb_turns WHERE status = 'running' AND started_at < $1 ORDER BY started_at LIMIT $2`, [startedBefore, limit]);
      return rows.map(turnFromRow);
    },
    async interruptTurn(turnId, at) {
      const { rows } = await pool.query<{ finished: boolean }>('SELECT sb_finish_turn($1, $2, $3, $4, $5) AS finished', [turnId, 'interrupted', '', at, '{}']);
      return rows[0]?.finished === true;
    },
  };
}
