import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, MalformedResponseError, classifyAttemptError, isResponseFormatRejection, parseRetryAfter, retryDelayMs } from './retry-policy.js';

const context = { callerAborted: false, timedOut: false, timeoutMs: 1000, breakerOpen: false };

function apiError(status: number, message: string, headers: Record<string, string> = {}, param?: string): APIError {
  return APIError.generate(status, { error: { message, param } }, undefined, new Headers(headers));
}

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates, and caps them', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), 10_000)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), 10_000)).toBe(500);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }), 10_000)).toBe(150);
    expect(parseRetryAfter(new Headers({ 'retry-after': '120' }), 10_000)).toBe(10_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), 10_000, now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }), 10_000, now)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(undefined, 10_000)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), 10_000)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), 10_000)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('grows exponentially within equal-jitter bounds and is capped', () => {
    const low = { ...DEFAULT_RETRY_POLICY, random: () => 0 };
    const high = { ...DEFAULT_RETRY_POLICY, random: () => 0.999999 };
    expect([1, 2, 3].map((retry) => retryDelayMs(retry, low))).toEqual([125, 250, 500]);
    expect([1, 2, 3].map((retry) => retryDelayMs(retry, high))).toEqual([250, 500, 1000]);
    expect(retryDelayMs(10, high)).toBe(4000);
  });

  it('waits at least the Retry-After, plus at most 10 %', () => {
    expect(retryDelayMs(1, { ...DEFAULT_RETRY_POLICY, random: () => 0 }, 1000)).toBe(1000);
    expect(retryDelayMs(1, { ...DEFAULT_RETRY_POLICY, random: () => 0.999999 }, 1000)).toBe(1100);
  });
});

describe('classifyAttemptError', () => {
  it('does not retry when the endpoint asks for a wait longer than the longest it honours', () => {
    expect(classifyAttemptError(apiError(429, 'slow down', { 'retry-after': '3600' }), context, 10_000)).toMatchObject({ reason: 'rate_limited', retryable: false });
    expect(classifyAttemptError(apiError(503, 'down', { 'retry-after': '120' }), context, 10_000)).toMatchObject({ reason: 'server_error', retryable: false });
    expect(classifyAttemptError(apiError(429, 'slow down', { 'retry-after': '2' }), context, 10_000)).toMatchObject({ retryable: true, retryAfterMs: 2000 });
    expect(classifyAttemptError(apiError(429, 'slow down'), context, 10_000)).toMatchObject({ retryable: true });
  });

  it.each([
    [apiError(429, 'slow down', { 'retry-after': '3' }), { reason: 'rate_limited', retryable: true, status: 429, retryAfterMs: 3000 }],
    [apiError(500, 'boom'), { reason: 'server_error', retryable: true, status: 500 }],
    [apiError(503, 'busy'), { reason: 'server_error', retryable: true, status: 503 }],
    [apiError(408, 'late'), { reason: 'server_error', retryable: true, status: 408 }],
    [apiError(400, 'bad'), { reason: 'rejected', retryable: false, status: 400 }],
    [apiError(401, 'who'), { reason: 'rejected', retryable: false, status: 401 }],
    [new APIConnectionError({ message: 'Connection error.' }), { reason: 'connection', retryable: true }],
    [new MalformedResponseError('no choices'), { reason: 'malformed', retryable: true }],
    [new SyntaxError('Unexpected token'), { reason: 'malformed', retryable: true }],
    [new APIUserAbortError(), { reason: 'timeout', retryable: false }],
  ])('%s', (error, expected) => {
    expect(classifyAttemptError(error, context, 10_000)).toMatchObject(expected);
  });

  it('puts caller aborts and an open breaker first, never retryable', () => {
    expect(classifyAttemptError(apiError(500, 'x'), { ...context, callerAborted: true }, 10_000)).toMatchObject({ reason: 'aborted', retryable: false });
    expect(classifyAttemptError(new Error('Breaker is open'), { ...context, breakerOpen: true }, 10_000)).toMatchObject({ reason: 'circuit_open', retryable: false });
    expect(classifyAttemptError(new Error('aborted'), { ...context, timedOut: true }, 10_000)).toMatchObject({ reason: 'timeout', message: 'no answer within 1000 ms' });
  });
});

describe('isResponseFormatRejection', () => {
  it('recognises a 400 about response_format, and nothing else', () => {
    expect(isResponseFormatRejection(apiError(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported"))).toBe(true);
    expect(isResponseFormatRejection(apiError(400, 'unsupported', {}, 'response_format'))).toBe(true);
    expect(isResponseFormatRejection(apiError(422, 'json_schema is not supported by this backend'))).toBe(true);
    expect(isResponseFormatRejection(apiError(400, 'messages must not be empty'))).toBe(false);
    expect(isResponseFormatRejection(apiError(500, 'response_format crashed us'))).toBe(false);
    expect(isResponseFormatRejection(new Error('response_format'))).toBe(false);
  });
});
