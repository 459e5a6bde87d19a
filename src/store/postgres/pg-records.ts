/**
 * Turn events, dispatched-task records and retention on Postgres.
 */
import type pg from 'pg';
import { taskFromRow, type TaskRow } from '../rows.js';
import type { RetentionResult, TaskStore, TurnEventStore } from '../types.js';
import type { WriteBehind } from './pg-write-behind.js';

/** Events of each turn, as sent; a batch rides on the turn's next statement (pg-write-behind.ts). */
export function createPostgresEvents(pool: pg.Pool, writes: WriteBehind): TurnEventStore {
  return {
    appendEvents: (turnId, events) => writes.events(turnId, events),
    async listEvents(turnId, afterSeq = 0) {
      await writes.flush();
      const { rows } = await pool.query<{ seq: number; data: string }>({
        name: 'sb_list_events',
        text: 'SELECT seq, data FROM sb_events WHERE turn_id = $1 AND seq > $2 ORDER BY seq',
        values: [turnId, afterSeq],
      });
      return rows.map((row) => ({ seq: row.seq, data: row.data }));
    },
  };
}

/** The audit trail of dispatched sub-tasks: a dispatch is written before the request leaves, its outcome rides on a later statement. */
export function createPostgresTasks(pool: pg.Pool, writes: WriteBehind): TaskStore {
  return {
    async recordDispatch(task) {
      await writes.query(
        {
          name: 'sb_record_dispatch',
          text: `INSERT INTO sb_tasks (task_id, turn_id, user_id, session_id, agent_id, inputs, status, dispatches, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'dispatched', 1, $7, $8)
         ON CONFLICT (task_id) DO UPDATE SET dispatches = sb_tasks.dispatches + 1, status = 'dispatched', updated_at = EXCLUDED.updated_at`,
          values: [task.task_id, task.turn_id, task.user_id, task.session_id, task.agent_id, JSON.stringify(task.inputs), task.created_at, new Date().toISOString()],
        },
        { avoidTask: task.task_id },
      );
    },
    updateTask: (taskId, status, detail) => writes.taskOutcome(taskId, status, detail ?? null),
    async getTask(taskId) {
      await writes.flush();
      const { rows } = await pool.query<TaskRow>('SELECT * FROM sb_tasks WHERE task_id = $1', [taskId]);
      return rows[0] ? taskFromRow(rows[0]) : undefined;
    },
    async listTasks(turnId) {
      await writes.flush();
      const { rows } = await pool.query<TaskRow>('SELECT * FROM sb_tasks WHERE turn_id = $1 ORDER BY created_at, task_id', [turnId]);
      return rows.map(taskFromRow);
    },
  };
}

/** Deletes finished turns started before the cutoff, with their rows, and the A2A tasks that ended before it, in one transaction. */
export function createPostgresRetention(pool: pg.Pool, writes: WriteBehind): (cutoff: Date) => Promise<RetentionResult> {
  return async (cutoff) => {
    await writes.flush();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ turns: string; messages: string; events: string; tasks: string }>(
        `WITH expired AS (SELECT turn_id FROM sb_turns WHERE started_at < $1 AND status <> 'running'),
              gone_events AS (DELETE FROM sb_events WHERE turn_id IN (SELECT turn_id FROM expired) RETURNING 1),
              gone_tasks AS (DELETE FROM sb_tasks WHERE turn_id IN (SELECT turn_id FROM expired) RETURNING 1),
              gone_messages AS (DELETE FROM sb_messages WHERE turn_id IN (SELECT turn_id FROM expired) OR (turn_id IS NULL AND created_at < $1) RETURNING 1),
              gone_turns AS (DELETE FROM sb_turns WHERE turn_id IN (SELECT turn_id FROM expired) RETURNING 1)
         SELECT (SELECT count(*) FROM gone_turns) AS turns, (SELECT count(*) FROM gone_messages) AS messages,
                (SELECT count(*) FROM gone_events) AS events, (SELECT count(*) FROM gone_tasks) AS tasks`,
        [cutoff.toISOString()],
      );
      await client.query(
        `DELETE FROM sb_sessions s WHERE s.updated_at < $1
           AND NOT EXISTS (SELECT 1 FROM sb_messages m WHERE m.user_id = s.user_id AND m.session_id = s.session_id)`,
        [cutoff.toISOString()],
      );
      // A2A tasks no longer running, last changed before the cutoff (their history holds the user's messages).
      const a2a = await client.query(
        "DELETE FROM sb_a2a_tasks WHERE updated_at < $1 AND state NOT IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')",
        [cutoff.toISOString()],
      );
      await client.query('COMMIT');
      const row = rows[0]!;
      return { turns: Number(row.turns), messages: Number(row.messages), events: Number(row.events), tasks: Number(row.tasks), a2aTasks: a2a.rowCount ?? 0 };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
}
