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
  query: string;
  userId: string;
  sessionId?: string;
}

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
  switch (error.keyword) {
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
    required: ['query', 'user_id'],
    properties: {
      // `minLength` before `pattern`: an empty string reports "must not be empty".
      query: { type: 'string', minLength: 1, maxLength: maxQueryChars, pattern: '\\S', description: 'What the user said.' },
      user_id: { type: 'string', minLength: 1, maxLength: 128, pattern: USER_ID_PATTERN, description: 'The end user (owner of the session).' },
      session_id: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        pattern: SESSION_ID_PATTERN,
        description: 'Continue this conversation; a new one is created when absent.',
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
      const record = body as { query: string; user_id: string; session_id?: string };
      const value: ChatRequest = { query: record.query, userId: record.user_id };
      if (record.session_id !== undefined) value.sessionId = record.session_id;
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
