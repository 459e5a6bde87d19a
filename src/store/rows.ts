/**
 * Row shapes shared by the SQL backends and their mapping to the contract's
 * records. Both backends store times as ISO-8601 text and JSON as text (key
 * order kept), so a row maps the same way whichever database returned it.
 */
import { safeJsonParse } from '../util/index.js';
import type { StoredMessage, TaskRecord, TaskStatus, TurnRecord, TurnStatus } from './types.js';

export interface MessageRow {
  seq: number | string;
  turn_id: string | null;
  role: 'user' | 'assistant';
  content: string;
  /** Text (SQLite) or already parsed (Postgres JSONB). */
  metadata: string | Record<string, unknown> | null;
  created_at: string;
}

export interface TurnRow {
  turn_id: string;
  user_id: string;
  session_id: string;
  status: string;
  trace_id: string;
  started_at: string;
  finished_at: string | null;
}

export interface TaskRow {
  task_id: string;
  turn_id: string;
  user_id: string;
  session_id: string;
  agent_id: string;
  inputs: string | Record<string, unknown>;
  status: string;
  dispatches: number | string;
  detail: string | null;
  created_at: string;
  updated_at: string;
}

function parseObject(text: string | Record<string, unknown> | null): Record<string, unknown> | undefined {
  if (text === null) return undefined;
  // A driver that parsed the JSON already handed over a fresh object: it is a copy.
  if (typeof text === 'object') return Array.isArray(text) ? undefined : text;
  const parsed = safeJsonParse(text);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
    ? (parsed.value as Record<string, unknown>)
    : undefined;
}

export function messageFromRow(row: MessageRow): StoredMessage {
  const message: StoredMessage = { seq: Number(row.seq), role: row.role, content: row.content, created_at: row.created_at };
  if (row.turn_id !== null) message.turn_id = row.turn_id;
  const metadata = parseObject(row.metadata);
  if (metadata) message.metadata = metadata;
  return message;
}

export function turnFromRow(row: TurnRow): TurnRecord {
  const turn: TurnRecord = {
    turn_id: row.turn_id,
    user_id: row.user_id,
    session_id: row.session_id,
    status: row.status as TurnStatus,
    trace_id: row.trace_id,
    started_at: row.started_at,
  };
  if (row.finished_at !== null) turn.finished_at = row.finished_at;
  return turn;
}

export function taskFromRow(row: TaskRow): TaskRecord {
  const task: TaskRecord = {
    task_id: row.task_id,
    turn_id: row.turn_id,
    user_id: row.user_id,
    session_id: row.session_id,
    agent_id: row.agent_id,
    inputs: parseObject(row.inputs) ?? {},
    status: row.status as TaskStatus,
    dispatches: Number(row.dispatches),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  if (row.detail !== null) task.detail = row.detail;
  return task;
}
