/**
 * Tasks of the A2A server on SQLite (one row per owner and task).
 */
import type Database from 'better-sqlite3';
import type { A2aTaskQuery, A2aTaskRow, A2aTaskRows } from '../types.js';
import { writeGroupOf } from './sqlite-write-group.js';

/** The A2A server's tasks in the SQLite file. */
export function createSqliteA2aTasks(db: Database.Database): A2aTaskRows {
  const save = db.prepare(
    `INSERT INTO sb_a2a_tasks (owner, task_id, context_id, state, body, updated_at) VALUES (@owner, @task_id, @context_id, @state, @body, @updated_at)
     ON CONFLICT (owner, task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, body = excluded.body, updated_at = excluded.updated_at`,
  );
  const one = db.prepare<[string, string], A2aTaskRow>('SELECT owner, task_id, context_id, state, body, updated_at FROM sb_a2a_tasks WHERE owner = ? AND task_id = ?');
  const filter = `owner = @owner AND (@context_id IS NULL OR context_id = @context_id) AND (@state IS NULL OR state = @state)
       AND (@updated_after IS NULL OR updated_at > @updated_after)`;
  const list = db.prepare<Record<string, string | number | null>, A2aTaskRow>(
    `SELECT owner, task_id, context_id, state, body, updated_at FROM sb_a2a_tasks
     WHERE ${filter} AND (@after_at IS NULL OR updated_at < @after_at OR (updated_at = @after_at AND task_id < @after_id))
     ORDER BY updated_at DESC, task_id DESC LIMIT @limit`,
  );
  const count = db.prepare<Record<string, string | null>, { n: number }>(`SELECT COUNT(*) AS n FROM sb_a2a_tasks WHERE ${filter}`);
  const filterOf = (owner: string, query: Omit<A2aTaskQuery, 'limit' | 'after'>) => ({
    owner,
    context_id: query.contextId ?? null,
    state: query.state ?? null,
    updated_after: query.updatedAfter ?? null,
  });
  return {
    async save(row) {
      await writeGroupOf(db).write(() => save.run(row));
    },
    async get(owner, taskId) {
      return one.get(owner, taskId);
    },
    async list(owner, query: A2aTaskQuery) {
      return list.all({
        ...filterOf(owner, query),
        after_at: query.after?.updated_at ?? null,
        after_id: query.after?.task_id ?? null,
        limit: query.limit,
      });
    },
    async count(owner, query) {
      return count.get(filterOf(owner, query))?.n ?? 0;
    },
  };
}
