/**
 * Turn events, dispatched-task records and retention on SQLite.
 */
import type Database from 'better-sqlite3';
import type { RetentionResult, StoredEvent, TaskRecord, TaskStore, TurnEventStore } from '../types.js';
import { taskFromRow, type TaskRow } from '../rows.js';
import { writeGroupOf } from './sqlite-write-group.js';

/** Events of each turn, as sent. */
export function createSqliteEvents(db: Database.Database): TurnEventStore {
  const group = writeGroupOf(db);
  const insert = db.prepare('INSERT INTO sb_events (turn_id, seq, data, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const list = db.prepare<[string, number], { seq: number; data: string }>('SELECT seq, data FROM sb_events WHERE turn_id = ? AND seq > ? ORDER BY seq');
  // No savepoint of its own inside the group: a batch is rows of a log each stored at most once (a repeat
  // changes nothing), so a batch cut short by a failure keeps the events before it, as separate writes would.
  const append = (turnId: string, events: readonly StoredEvent[]) => {
    const now = new Date().toISOString();
    for (const event of events) insert.run(turnId, event.seq, event.data, now);
  };
  return {
    async appendEvents(turnId, events) {
      if (events.length > 0) await group.write(() => append(turnId, events));
    },
    async listEvents(turnId, afterSeq = 0) {
      return list.all(turnId, afterSeq).map((row) => ({ seq: row.seq, data: row.data }));
    },
  };
}

/** The audit trail of dispatched sub-tasks. */
export function createSqliteTasks(db: Database.Database): TaskStore {
  const group = writeGroupOf(db);
  const record = db.prepare(
    `INSERT INTO sb_tasks (task_id, turn_id, user_id, session_id, agent_id, inputs, status, dispatches, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'dispatched', 1, ?, ?)
     ON CONFLICT (task_id) DO UPDATE SET dispatches = sb_tasks.dispatches + 1, status = 'dispatched', updated_at = excluded.updated_at`,
  );
  const update = db.prepare('UPDATE sb_tasks SET status = ?, detail = ?, updated_at = ? WHERE task_id = ?');
  const one = db.prepare<[string], TaskRow>('SELECT * FROM sb_tasks WHERE task_id = ?');
  const byTurn = db.prepare<[string], TaskRow>('SELECT * FROM sb_tasks WHERE turn_id = ? ORDER BY created_at, task_id');
  return {
    async recordDispatch(task: Omit<TaskRecord, 'status' | 'dispatches' | 'updated_at' | 'detail'>) {
      const inputs = JSON.stringify(task.inputs);
      await group.write(() => record.run(task.task_id, task.turn_id, task.user_id, task.session_id, task.agent_id, inputs, task.created_at, new Date().toISOString()));
    },
    async updateTask(taskId, status, detail) {
      await group.write(() => update.run(status, detail ?? null, new Date().toISOString(), taskId));
    },
    async getTask(taskId) {
      const row = one.get(taskId);
      return row ? taskFromRow(row) : undefined;
    },
    async listTasks(turnId) {
      return byTurn.all(turnId).map(taskFromRow);
    },
  };
}

/** The A2A task states of a task still running: retention leaves them, as it leaves running turns. */
const A2A_ACTIVE_STATES = "'TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'";

/** Deletes finished turns started before the cutoff, with their rows, and the A2A tasks that ended before it. */
export function createSqliteRetention(db: Database.Database): (cutoff: Date) => Promise<RetentionResult> {
  const run = db.transaction((cutoff: string): RetentionResult => {
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS sb_expired (turn_id TEXT PRIMARY KEY); DELETE FROM sb_expired;`);
    db.prepare(`INSERT INTO sb_expired SELECT turn_id FROM sb_turns WHERE started_at < ? AND status <> 'running'`).run(cutoff);
    const events = db.prepare('DELETE FROM sb_events WHERE turn_id IN (SELECT turn_id FROM sb_expired)').run().changes;
    const tasks = db.prepare('DELETE FROM sb_tasks WHERE turn_id IN (SELECT turn_id FROM sb_expired)').run().changes;
    const messages =
      db.prepare('DELETE FROM sb_messages WHERE turn_id IN (SELECT turn_id FROM sb_expired)').run().changes +
      db.prepare('DELETE FROM sb_messages WHERE turn_id IS NULL AND created_at < ?').run(cutoff).changes;
    const turns = db.prepare('DELETE FROM sb_turns WHERE turn_id IN (SELECT turn_id FROM sb_expired)').run().changes;
    db.prepare(
      `DELETE FROM sb_sessions WHERE updated_at < ? AND NOT EXISTS
         (SELECT 1 FROM sb_messages m WHERE m.user_id = sb_sessions.user_id AND m.session_id = sb_sessions.session_id)`,
    ).run(cutoff);
    // A2A tasks no longer running, last changed before the cutoff (their history holds the user's messages).
    const a2aTasks = db.prepare(`DELETE FROM sb_a2a_tasks WHERE updated_at < ? AND state NOT IN (${A2A_ACTIVE_STATES})`).run(cutoff).changes;
    return { turns, messages, events, tasks, a2aTasks };
  });
  const group = writeGroupOf(db);
  return (cutoff) => group.write(() => run(cutoff.toISOString()));
}
