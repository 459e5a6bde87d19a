/**
 * Tasks of the A2A server on Postgres (one row per owner and task), shared by
 * every replica on the database.
 */
import type pg from 'pg';
import type { A2aTaskQuery, A2aTaskRow, A2aTaskRows } from '../types.js';

const COLUMNS = 'owner, task_id, context_id, state, body, updated_at';
const FILTER = 'owner = $1 AND ($2::text IS NULL OR context_id = $2) AND ($3::text IS NULL OR state = $3) AND ($4::text IS NULL OR updated_at > $4)';

function filterValues(owner: string, query: Omit<A2aTaskQuery, 'limit' | 'after'>): (string | null)[] {
  return [owner, query.contextId ?? null, query.state ?? null, query.updatedAfter ?? null];
}

/** The A2A server's tasks in Postgres. */
export function createPostgresA2aTasks(pool: pg.Pool): A2aTaskRows {
  return {
    async save(row) {
      await pool.query(
        `INSERT INTO sb_a2a_tasks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (owner, task_id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state, body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`,
        [row.owner, row.task_id, row.context_id, row.state, row.body, row.updated_at],
      );
    },
    async get(owner, taskId) {
      const { rows } = await pool.query<A2aTaskRow>(`SELECT ${COLUMNS} FROM sb_a2a_tasks WHERE owner = $1 AND task_id = $2`, [owner, taskId]);
      return rows[0];
    },
    async list(owner, query) {
      const { rows } = await pool.query<A2aTaskRow>(
        `SELECT ${COLUMNS} FROM sb_a2a_tasks WHERE ${FILTER}
           AND ($5::text IS NULL OR (updated_at, task_id) < ($5::text, $6::text))
         ORDER BY updated_at DESC, task_id DESC LIMIT $7`,
        [...filterValues(owner, query), query.after?.updated_at ?? null, query.after?.task_id ?? null, query.limit],
      );
      return rows;
    },
    async count(owner, query) {
      const { rows } = await pool.query<{ n: string }>(`SELECT COUNT(*) AS n FROM sb_a2a_tasks WHERE ${FILTER}`, filterValues(owner, query));
      return Number(rows[0]?.n ?? 0);
    },
  };
}
