/**
 * The wire protocol between Switchboard and a sub-agent (one JSON request in,
 * one reply envelope out): its types, its JSON Schemas, and checks of both
 * written by hand so the kit needs no JSON Schema library. Extra fields are
 * allowed in both, so the protocol can grow.
 */

/** What Switchboard POSTs to a sub-agent. */
export interface AgentRequestBody {
  /** Idempotency key: a retried call carries the same one. */
  task_id: string;
  /** The sub-task in words. */
  message: string;
  /** Semantic key values, e.g. `{ city: "北京" }`. */
  inputs: Record<string, unknown>;
  user_id: string;
  /** The conversation (session) id. */
  thread_id: string;
  /** Also sent as the `x-trace-id` header. */
  trace_id: string;
  /** Outputs of the tasks this one depends on, by task id. */
  upstream: Record<string, { agent: string; output: unknown }>;
}

/** What a sub-agent answers: the http-json body, or the data of the one `result` event of http-sse. */
export interface AgentReply {
  status: 'completed' | 'failed' | 'input_required';
  output?: Record<string, unknown>;
  /** User-facing text. */
  message?: string;
  /** With `input_required`: the keys still needed. */
  missing_keys?: string[];
}

/** JSON Schema of the request body. */
export const AGENT_REQUEST_SCHEMA = Object.freeze({
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Sub-agent request',
  type: 'object',
  required: ['task_id', 'message', 'inputs', 'user_id', 'thread_id', 'trace_id', 'upstream'],
  properties: {
    task_id: { type: 'string', minLength: 1 },
    message: { type: 'string' },
    inputs: { type: 'object', additionalProperties: {} },
    user_id: { type: 'string' },
    thread_id: { type: 'string' },
    trace_id: { type: 'string' },
    upstream: { type: 'object', additionalProperties: { type: 'object', required: ['agent', 'output'], properties: { agent: { type: 'string' }, output: {} } } },
  },
});

/** JSON Schema of the reply envelope. */
export const AGENT_REPLY_SCHEMA = Object.freeze({
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Sub-agent reply envelope',
  type: 'object',
  required: ['status'],
  properties: {
    status: { enum: ['completed', 'failed', 'input_required'] },
    output: { type: 'object', additionalProperties: {} },
    message: { type: 'string' },
    missing_keys: { type: 'array', items: { type: 'string' } },
  },
});

/** A checked value, or why it is not acceptable. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a parsed request body against the request schema. */
export function checkAgentRequest(value: unknown): Checked<AgentRequestBody> {
  if (!isObject(value)) return { ok: false, error: 'the body must be a JSON object' };
  for (const field of ['task_id', 'message', 'user_id', 'thread_id', 'trace_id'] as const) {
    if (typeof value[field] !== 'string') return { ok: false, error: `/${field} must be a string` };
  }
  if ((value.task_id as string).length === 0) return { ok: false, error: '/task_id must not be empty' };
  if (!isObject(value.inputs)) return { ok: false, error: '/inputs must be an object' };
  if (!isObject(value.upstream)) return { ok: false, error: '/upstream must be an object' };
  for (const [taskId, entry] of Object.entries(value.upstream)) {
    if (!isObject(entry) || typeof entry.agent !== 'string' || !('output' in entry)) return { ok: false, error: `/upstream/${taskId} must be { agent, output }` };
  }
  return { ok: true, value: value as unknown as AgentRequestBody };
}

/** Checks a parsed reply against the reply envelope. */
export function checkAgentReply(value: unknown): Checked<AgentReply> {
  if (!isObject(value)) return { ok: false, error: 'the reply must be a JSON object' };
  if (value.status !== 'completed' && value.status !== 'failed' && value.status !== 'input_required') {
    return { ok: false, error: '/status must be one of completed, failed, input_required' };
  }
  if (value.output !== undefined && !isObject(value.output)) return { ok: false, error: '/output must be an object' };
  if (value.message !== undefined && typeof value.message !== 'string') return { ok: false, error: '/message must be a string' };
  if (value.missing_keys !== undefined && (!Array.isArray(value.missing_keys) || value.missing_keys.some((key) => typeof key !== 'string'))) {
    return { ok: false, error: '/missing_keys must be an array of strings' };
  }
  return { ok: true, value: value as unknown as AgentReply };
}

/** Parses JSON text without throwing. */
export function parseJson(text: string): Checked<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
