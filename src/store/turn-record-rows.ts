/**
 * Turn records as the SQL backends keep them: columns on `sb_turns` (the
 * tenant, the outcome word, the agents as `,a,b,` so one agent is found with
 * a substring search, and the record as JSON text), and the cursor of a
 * listing. Kept on the turn's own row, a record goes wherever the turn goes
 * (retention, forgetting a user).
 */
import { safeJsonParse } from '../util/index.js';
import type { StoredTurnRecord, TurnRecordQuery } from './types.js';

/** The columns a finished turn's record fills. */
export interface TurnRecordColumns {
  outcome: string;
  agents: string;
  record: string;
}

/** The agents of a record as the `agents` column holds them. */
export function agentsColumn(agents: readonly string[]): string {
  return `,${agents.join(',')},`;
}

/** What a record's columns hold. */
export function turnRecordColumns(record: StoredTurnRecord): TurnRecordColumns {
  return { outcome: record.outcome, agents: agentsColumn(record.agents), record: JSON.stringify(record) };
}

/** A row of a listing: the record's JSON text and the turn's start, which orders the listing. */
export interface TurnRecordRow {
  record: string | null;
  started_at: string;
}

/** The record of a row (its `at` is the turn row's `started_at`, what the order and a cursor use); undefined when unreadable. */
export function turnRecordFromRow(row: TurnRecordRow | undefined): StoredTurnRecord | undefined {
  if (!row || row.record === null) return undefined;
  const parsed = safeJsonParse(row.record);
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return undefined;
  return { ...(parsed.value as StoredTurnRecord), at: row.started_at };
}

/**
 * The listing's query: one tenant's recorded turns with the filters that are set, newest first.
 * `placeholder(n)` spells the n-th parameter (`?` or `$n`); `agentMatch` is the dialect's test that the
 * `agents` column holds `,<parameter>,` (its one placeholder is the agent id).
 */
export function listTurnRecordsSql(query: TurnRecordQuery, placeholder: (index: number) => string, agentMatch: string): { sql: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: (...names: string[]) => string, ...args: unknown[]): void => {
    const names = args.map((arg) => {
      values.push(arg);
      return placeholder(values.length);
    });
    where.push(clause(...names));
  };
  add((tenant) => `tenant = ${tenant} AND record IS NOT NULL`, query.tenant);
  if (query.outcome !== undefined) add((outcome) => `outcome = ${outcome}`, query.outcome);
  if (query.agent !== undefined) add((agent) => agentMatch.replace('?', agent!), query.agent);
  if (query.sessionId !== undefined) add((session) => `session_id = ${session}`, query.sessionId);
  if (query.since !== undefined) add((since) => `started_at >= ${since}`, query.since);
  if (query.before !== undefined) {
    add((at, same, id) => `(started_at < ${at} OR (started_at = ${same} AND turn_id < ${id}))`, query.before.at, query.before.at, query.before.turnId);
  }
  values.push(query.limit);
  return { sql: `SELECT record, started_at FROM sb_turns WHERE ${where.join(' AND ')} ORDER BY started_at DESC, turn_id DESC LIMIT ${placeholder(values.length)}`, values };
}
