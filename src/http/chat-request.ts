/**
 * Validation of the `POST /v1/chat` body and of the ids in other routes.
 * Every rejection names the field and what is wrong with it; unknown extra
 * fields are ignored so clients can evolve ahead of the server.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { UserError } from '../errors.js';

/** Allowed characters of a session id (CONTRACT: `[A-Za-z0-9_.:-]{1,128}`). */
export const SESSION_ID_PATTERN = '^[A-Za-z0-9_.:-]{1,128}$';
/** Allowed characters of a user id: as a session id, plus `@` so e-mail-like ids pass. */
export const USER_ID_PATTERN = '^[A-Za-z0-9_.:@-]{1,128}$';

/** A validated chat request, in the camelCase the turn runner reads. */
export interface ChatRequest {
  /** '' when the body only confirms or rejects parked tasks. */
  query: string;
  userId: string;
  sessionId?: string;
  /** Task ids of side-effect tasks the user confirms / rejects (CONTRACT §3). */
  confirm?: string[];
  reject?: string[];
  /** `continue`: the turn runs to its end when the client goes away (and can be resumed). Default `cancel`. */
  onDisconnect?: 'cancel' | 'continue';
  multitaskStrategy?: 'reject' | 'enqueue' | 'interrupt';
}

/** Allowed characters of a task id named in `confirm` / `reject`. */
export const TASK_ID_PATTERN = '^[A-Za-z0-9_.:-]{1,200}$';
const MAX_TASK_IDS = 50;

/** What a validator returns for a body: the request or a message naming the field. */
export type ChatRequestCheck = { ok: true; value: ChatRequest } | { ok: false; field: string; message: string };

const FIELD_RULES: Record<string, string> = {
  user_id: 'letters, digits and _ . : @ - (1 to 128 characters)',
  session_id: 'letters, digits and _ . : - (1 to 128 characters)',
};

function describe(error: ErrorObject, maxQueryChars: number): { field: string; message: string } {
  if (error.keyword === 'required') {
    const field = String((error.params as { missingProperty: string }).missingProperty);
    return { field, message: `${field} is required` };
  }
  const field = error.instancePath.replace(/^\//, '') || 'body';
  if (field === 'body') return { field, message: 'body must be a JSON object with "query" and "user_id"' };
  const list = /^(confirm|reject)(?:\/(\d+))?$/.exec(field);
  if (list) {
    const name = list[1]!;
    if (list[2] === undefined) {
      return error.keyword === 'maxItems'
        ? { field: name, message: `${name} may name at most ${MAX_TASK_IDS} task ids` }
        : { field: name, message: `${name} must be an array of task ids` };
    }
    return { field: name, message: `${name}[${list[2]}] must be a task id (letters, digits and _ . : -, 1 to 200 characters)` };
  }
  switch (error.keyword) {
    case 'enum':
      return { field, message: `${field} must be one of ${((error.params as { allowedValues: string[] }).allowedValues ?? []).map((value) => `"${value}"`).join(', ')}` };
    case 'type':
      return { field, message: `${field} must be a string` };
    case 'minLength':
      return { field, message: `${field} must not be empty` };
    case 'maxLength':
      return field === 'query'
        ? { field, message: `query is longer than ${maxQueryChars} characters` }
        : { field, message: `${field} must be at most 128 characters` };
    case 'pattern':
      return field === 'query'
        ? { field, message: 'query must not be empty' }
        : { field, message: `${field} may only contain ${FIELD_RULES[field] ?? 'allowed characters'}` };
    default:
      return { field, message: `${field} is invalid` };
  }
}

/**
 * JSON Schema of the `POST /v1/chat` body. The validator compiles it and
 * `GET /openapi.json` publishes it, so the description cannot drift from
 * what the server accepts: a new body field is added here.
 */
export function chatRequestSchema(maxQueryChars = 4000): Record<string, unknown> {
  return {
    type: 'object',
    required: ['user_id'],
    properties: {
      // `minLength` before `pattern`: an empty string reports "must not be empty".
      query: { type: 'string', minLength: 1, maxLength: maxQueryChars, pattern: '\\S', description: 'What the user said. May be left out when `confirm` or `reject` names task ids.' },
      user_id: { type: 'string', minLength: 1, maxLength: 128, pattern: USER_ID_PATTERN, description: 'The end user (owner of the session).' },
      session_id: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        pattern: SESSION_ID_PATTERN,
        description: 'Continue this conversation; a new one is created when absent.',
      },
      confirm: {
        type: 'array',
        maxItems: MAX_TASK_IDS,
        items: { type: 'string', pattern: TASK_ID_PATTERN },
        description: 'Task ids of side-effect tasks awaiting confirmation that the user confirms; `query` may then be left out.',
      },
      reject: {
        type: 'array',
        maxItems: MAX_TASK_IDS,
        items: { type: 'string', pattern: TASK_ID_PATTERN },
        description: 'Task ids of side-effect tasks awaiting confirmation that the user rejects; `query` may then be left out.',
      },
      on_disconnect: {
        type: 'string',
        enum: ['cancel', 'continue'],
        description: 'What happens when the client goes away mid-turn: `cancel` (default) aborts the turn and its sub-agent calls; `continue` lets it finish so it can be resumed with GET /v1/sessions/{session_id}/stream.',
      },
      multitask_strategy: {
        type: 'string',
        enum: ['reject', 'enqueue', 'interrupt'],
        description: 'While another turn runs on the session: `reject` (default) answers 409; `enqueue` starts this turn when that one ends (FIFO, bounded: 429 when full); `interrupt` cancels it, then runs this one.',
      },
    },
  };
}

/** Builds the body validator for `POST /v1/chat`. */
export function createChatRequestValidator(options: { maxQueryChars?: number } = {}): (body: unknown) => ChatRequestCheck {
  const maxQueryChars = options.maxQueryChars ?? 4000;
  const ajv = new Ajv({ allErrors: false });
  const validate = ajv.compile(chatRequestSchema(maxQueryChars));
  return (body) => {
    if (validate(body)) {
      const record = body as { query?: string; user_id: string; session_id?: string; confirm?: string[]; reject?: string[]; on_disconnect?: 'cancel' | 'continue'; multitask_strategy?: 'reject' | 'enqueue' | 'interrupt' };
      const confirming = (record.confirm?.length ?? 0) + (record.reject?.length ?? 0) > 0;
      // `query` may be left out only when the body confirms or rejects parked tasks.
      if (record.query === undefined && !confirming) return { ok: false, field: 'query', message: 'query is required' };
      const value: ChatRequest = { query: record.query ?? '', userId: record.user_id };
      if (record.session_id !== undefined) value.sessionId = record.session_id;
      if (record.confirm?.length) value.confirm = record.confirm;
      if (record.reject?.length) value.reject = record.reject;
      if (record.on_disconnect !== undefined) value.onDisconnect = record.on_disconnect;
      if (record.multitask_strategy !== undefined) value.multitaskStrategy = record.multitask_strategy;
      return { ok: true, value };
    }
    const first = validate.errors?.[0];
    if (!first) return { ok: false, field: 'body', message: 'body is invalid' };
    return { ok: false, ...describe(first, maxQueryChars) };
  };
}

/** Throws a 400 naming `field` unless `value` is a string matching `pattern`. */
export function requireIdParameter(field: string, value: unknown, pattern: string): string {
  if (value === undefined || value === '') throw new UserError('BAD_REQUEST', `${field} is required`, { field });
  if (typeof value !== 'string') throw new UserError('BAD_REQUEST', `${field} must be a single string`, { field });
  if (!new RegExp(pattern).test(value)) {
    throw new UserError('BAD_REQUEST', `${field} may only contain ${FIELD_RULES[field] ?? 'allowed characters'}`, { field });
  }
  return value;
}
