import { describe, expect, it } from 'vitest';
import { SystemError, UserError } from '../errors.js';
import { LlmConfigError } from '../llm/llm-error.js';
import { mapError } from './error-handler.js';

describe('mapError', () => {
  it('keeps a user error status, code, message and details', () => {
    const mapped = mapError(new UserError('BAD_REQUEST', 'query is required', { field: 'query' }));
    expect(mapped).toEqual({ status: 400, body: { error: { code: 'BAD_REQUEST', message: 'query is required', details: { field: 'query' } } } });
  });

  it('turns retryAfterSeconds into a header value, not a body field', () => {
    const mapped = mapError(new UserError('RATE_LIMITED', undefined, { retryAfterSeconds: 0.2 }));
    expect(mapped.status).toBe(429);
    expect(mapped.retryAfterSeconds).toBe(1);
    expect(mapped.body).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests.' } });
  });

  it('treats a bad registry file and a bad model setting as user errors (4xx) with their message', () => {
    expect(mapError(new UserError('CONFIG_INVALID', 'registry a.yaml is invalid (1 problem)'))).toEqual({
      status: 422,
      body: { error: { code: 'CONFIG_INVALID', message: 'registry a.yaml is invalid (1 problem)' } },
    });
    expect(mapError(new LlmConfigError('LLM_MODEL is missing'))).toEqual({
      status: 422,
      body: { error: { code: 'LLM_CONFIG_INVALID', message: 'LLM_MODEL is missing' } },
    });
  });

  it('hides the message of system errors and plain errors', () => {
    expect(mapError(new SystemError('INTERNAL', 'sqlite file /var/db locked'))).toEqual({
      status: 500,
      body: { error: { code: 'INTERNAL', message: 'Internal error.' } },
    });
    expect(mapError(new SystemError('NOT_READY', 'registry not loaded')).status).toBe(503);
    expect(mapError(new TypeError('x is undefined')).body.error.message).toBe('Internal error.');
    expect(mapError('a string').status).toBe(500);
  });

  it('maps body parser failures', () => {
    expect(mapError(Object.assign(new Error('too big'), { type: 'entity.too.large', status: 413, limit: 10 })).body.error).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'body is too large (limit 10 bytes)',
    });
    expect(mapError(Object.assign(new Error('Unexpected end of JSON input'), { type: 'entity.parse.failed', status: 400 })).body.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'body is not valid JSON: Unexpected end of JSON input',
      details: { field: 'body' },
    });
    expect(mapError(Object.assign(new Error('enc'), { type: 'encoding.unsupported', status: 415 })).status).toBe(415);
  });
});
