/**
 * Validation of the `POST /v1/chat` body and of the ids in other routes.
 * Every rejection names the field and what is wrong with it; unknown extra
 * fields are ignored so clients can evolve ahead of the server.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { UserError } from '../errors.js';
import { ID_RULES, isValidId, type IdKind } from '../id-patterns.js';

/** A validated chat request, in the camelCase the turn runner reads. */
export interface ChatRequest {
  /** '' when the body only confirms or rejects parked tasks, or chooses an option. */
  query: string;
  userId: string;
  sessionId?: string;
  /** Task ids of side-effect tasks the user confirms / rejects (docs/api.md#conversation-rules). */
  confirm?: string[];
  reject?: string[];
  /** The option id of the last clarification the user chooses (contract v4; `query` may then be left out). */
  choose?: string;
  /** `continue`: the turn runs to its end when the client goes away (and can be resumed). Default `cancel`. */
  onDisconnect?: 'cancel' | 'continue';
  multitaskStrategy?: 'reject' | 'enqueue' | 'interrupt';
}

const MAX_TASK_IDS = 50;
/** What an option id looks like (`opt_1`; letters, digits and _ . : -, up to 64). */
const OPTION_ID_PATTERN = '^[A-Za-z0-9_.:-]{1,64}$';

/** What a validator returns for a body: the request or a message naming the field. */
export type ChatRequestCheck = { ok: true; value: ChatRequest } | { ok: false; field: string; message: string };

/** The allowed characters of an id field, in words. */
function allowedIn(field: string): string {
  return field in ID_RULES ? ID_RULES[field as IdKind].allowed : 'allowed characters';
}

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
    return { field: name, message: `${name}[${list[2]}] must be a task id (${ID_RULES.task_id.allowed})` };
  }
  if (field === 'choose') {
    return error.keyword === 'type' ? { field, message: 'choose must be a string (an option_id of the last clarification)' } : { field, message: 'choose must be an option_id: 1 to 64 letters, digits and _ . : -' };
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
        : { field, message: `${field} must be at most ${field in ID_RULES ? ID_RULES[field as IdKind].maxLength : 128} characters` };
    case 'pattern':
      return field === 'query'
        ? { field, message: 'query must not be empty' }
        : { field, message: `${field} may only contain ${allowedIn(field)}` };
    default:
      return { field, message: `${field} is invalid` };
  }
}

/**
 * What the body must hold besides `user_id`, as the document states it (`anyOf`): a `query`, or a
 * non-empty `confirm` or `reject`, or `choose`. The validator checks it in code after the other
 * rules (so the refusal says "query is required"); the OpenAPI property test holds the two together.
 */
export const CHAT_BODY_ANY_OF: readonly Record<string, unknown>[] = [
  { required: ['query'] },
  { required: ['confirm'], properties: { confirm: { minItems: 1 } } },
  { required: ['reject'], properties: { reject: { minItems: 1 } } },
  { required: ['choose'] },
];

/**
 * JSON Schema of the `POST /v1/chat` body. The validator compiles it and
 * `GET /openapi.json` publishes it, so the description cannot drift from
 * what the server accepts: a new body field is added here.
 */
export function chatRequestSchema(maxQueryChars = 4000): Record<string, unknown> {
  return {
    type: 'object',
    required: ['user_id'],
    anyOf: CHAT_BODY_ANY_OF,
    properties: {
      // `minLength` before `pattern`: an empty string reports "must not be empty".
      query: { type: 'string', minLength: 1, maxLength: maxQueryChars, pattern: '\\S', description: 'What the user said. May be left out when `confirm` or `reject` names task ids, or `choose` names an option.' },
      user_id: { type: 'string', minLength: 1, maxLength: ID_RULES.user_id.maxLength, pattern: ID_RULES.user_id.pattern, description: 'The end user (owner of the session).' },
      session_id: {
        type: 'string',
        minLength: 1,
        maxLength: ID_RULES.session_id.maxLength,
        pattern: ID_RULES.session_id.pattern,
        description: 'Continue this conversation; a new one is created when absent.',
      },
      confirm: {
        type: 'array',
        maxItems: MAX_TASK_IDS,
        items: { type: 'string', pattern: ID_RULES.task_id.pattern },
        description: 'Task ids of side-effect tasks awaiting confirmation that the user confirms; `query` may then be left out.',
      },
      reject: {
        type: 'array',
        maxItems: MAX_TASK_IDS,
        items: { type: 'string', pattern: ID_RULES.task_id.pattern },
        description: 'Task ids of side-effect tasks awaiting confirmation that the user rejects; `query` may then be left out.',
      },
      choose: {
        type: 'string',
        pattern: OPTION_ID_PATTERN,
        description: 'The `option_id` of an option of the last clarification (`metadata.clarification.options`) the user chooses; `query` may then be left out. An id the last clarification did not offer is answered without running anything.',
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
  // The `anyOf` is checked after the schema, in code, so that its refusal names `query`.
  const { anyOf: _anyOf, ...fieldRules } = chatRequestSchema(maxQueryChars);
  const validate = ajv.compile(fieldRules);
  return (body) => {
    if (validate(body)) {
      const record = body as { query?: string; user_id: string; session_id?: string; confirm?: string[]; reject?: string[]; choose?: string; on_disconnect?: 'cancel' | 'continue'; multitask_strategy?: 'reject' | 'enqueue' | 'interrupt' };
      const confirming = (record.confirm?.length ?? 0) + (record.reject?.length ?? 0) > 0;
      // `query` may be left out only when the body confirms or rejects parked tasks, or chooses an option.
      if (record.query === undefined && !confirming && record.choose === undefined) return { ok: false, field: 'query', message: 'query is required' };
      const value: ChatRequest = { query: record.query ?? '', userId: record.user_id };
      if (record.session_id !== undefined) value.sessionId = record.session_id;
      if (record.confirm?.length) value.confirm = record.confirm;
      if (record.reject?.length) value.reject = record.reject;
      if (record.choose !== undefined) value.choose = record.choose;
      if (record.on_disconnect !== undefined) value.onDisconnect = record.on_disconnect;
      if (record.multitask_strategy !== undefined) value.multitaskStrategy = record.multitask_strategy;
      return { ok: true, value };
    }
    const first = validate.errors?.[0];
    if (!first) return { ok: false, field: 'body', message: 'body is invalid' };
    return { ok: false, ...describe(first, maxQueryChars) };
  };
}

/** Throws a 400 naming `field` unless `value` is an id of that kind (`session_id`, `user_id`, …). */
export function requireIdParameter(field: IdKind, value: unknown): string {
  if (value === undefined || value === '') throw new UserError('BAD_REQUEST', `${field} is required`, { field });
  if (typeof value !== 'string') throw new UserError('BAD_REQUEST', `${field} must be a single string`, { field });
  if (!isValidId(field, value)) throw new UserError('BAD_REQUEST', `${field} may only contain ${allowedIn(field)}`, { field });
  return value;
}
