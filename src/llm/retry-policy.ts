/**
 * Which failed attempts are worth another try, and how long to wait first.
 *
 * Retried: 408, 409, 429, 5xx, connection errors and malformed 2xx bodies (a
 * proxy hiccup more often than a model fault). Never retried: a caller abort,
 * an open circuit, other 4xx, and a timeout: an endpoint that sat on a request
 * for the whole timeout rarely answers the next one sooner, and each retry
 * would hold the user's turn for another full timeout before the offline
 * fallback takes over. The wait is exponential backoff
 * with jitter, except that a `Retry-After` / `retry-after-ms` header from the
 * endpoint is honoured (capped, so one header cannot park a turn for minutes).
 */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { LlmFailureReason } from './llm-error.js';

export interface RetryPolicy {
  /** Delay before the first retry, doubled for each further one. */
  baseDelayMs: number;
  /** Upper bound of the computed backoff. */
  maxDelayMs: number;
  /** Upper bound of a server-sent `Retry-After`. */
  maxRetryAfterMs: number;
  /** Source of jitter in [0, 1). */
  random: () => number;
}

/** Defaults: 250 ms, 500 ms, 1 s, ... up to 4 s; `Retry-After` capped at 10 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 250,
  maxDelayMs: 4000,
  maxRetryAfterMs: 10_000,
  random: Math.random,
};

/** What went wrong in one attempt, as the retry loop needs it. */
export interface AttemptFailure {
  reason: LlmFailureReason;
  retryable: boolean;
  message: string;
  status?: number;
  /** Wait the endpoint asked for, already capped; absent when it asked for none. */
  retryAfterMs?: number;
}

/** Context the classification cannot read from the error itself. */
export interface AttemptContext {
  callerAborted: boolean;
  timedOut: boolean;
  timeoutMs: number;
  breakerOpen: boolean;
}

/**
 * Milliseconds the endpoint asked us to wait: `retry-after-ms`, else
 * `retry-after` as seconds or as an HTTP date. Capped at `maxMs`; undefined
 * when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers | undefined, maxMs: number, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  let waitMs: number | undefined;
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && milliseconds.trim() !== '' && Number.isFinite(Number(milliseconds))) {
    waitMs = Number(milliseconds);
  }
  const value = headers.get('retry-after');
  if (waitMs === undefined && value !== null && value.trim() !== '') {
    const seconds = Number(value);
    if (Number.isFinite(seconds)) waitMs = seconds * 1000;
    else {
      const date = Date.parse(value);
      if (!Number.isNaN(date)) waitMs = date - now;
    }
  }
  if (waitMs === undefined) return undefined;
  return Math.min(Math.max(0, waitMs), maxMs);
}

/**
 * Wait before retry number `retryNumber` (1 for the first retry): the
 * server's `Retry-After` plus up to 10 % jitter when given, else exponential
 * backoff with "equal jitter" (half fixed, half random).
 */
export function retryDelayMs(retryNumber: number, policy: RetryPolicy, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.round(retryAfterMs + retryAfterMs * 0.1 * policy.random());
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(exponential / 2 + (exponential / 2) * policy.random());
}

/** Classifies the error of one attempt. */
export function classifyAttemptError(error: unknown, context: AttemptContext, maxRetryAfterMs: number): AttemptFailure {
  if (context.callerAborted) return { reason: 'aborted', retryable: false, message: 'the call was aborted by the caller' };
  if (context.breakerOpen) {
    return { reason: 'circuit_open', retryable: false, message: 'the model endpoint is failing repeatedly; circuit breaker is open' };
  }
  if (context.timedOut || error instanceof APIUserAbortError || isAbortError(error)) {
    return { reason: 'timeout', retryable: false, message: `no answer within ${context.timeoutMs} ms` };
  }
  if (error instanceof APIConnectionError) {
    return { reason: 'connection', retryable: true, message: `cannot reach the model endpoint: ${describeCause(error)}` };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const status = error.status;
    const detail = error.message;
    // An endpoint that asks for a longer wait than the longest honoured is not retried: waiting the cap would only stall the turn.
    const asked = parseRetryAfter(error.headers, Number.POSITIVE_INFINITY);
    const retryable = asked === undefined || asked <= maxRetryAfterMs;
    if (status === 429) {
      return { reason: 'rate_limited', retryable, status, message: `rate limited (429): ${detail}`, retryAfterMs: parseRetryAfter(error.headers, maxRetryAfterMs) };
    }
    if (status >= 500) {
      return { reason: 'server_error', retryable, status, message: `endpoint error (${status}): ${detail}`, retryAfterMs: parseRetryAfter(error.headers, maxRetryAfterMs) };
    }
    if (status === 408 || status === 409) {
      return { reason: 'server_error', retryable: true, status, message: `endpoint asked to retry (${status}): ${detail}` };
    }
    return { reason: 'rejected', retryable: false, status, message: `endpoint refused the request (${status}): ${detail}` };
  }
  if (error instanceof MalformedResponseError || error instanceof SyntaxError) {
    return { reason: 'malformed', retryable: true, message: `the endpoint sent a malformed response: ${(error as Error).message}` };
  }
  if (error instanceof APIError) {
    // An `error` object inside a stream, without an HTTP status.
    return { reason: 'server_error', retryable: true, message: `endpoint error: ${error.message}` };
  }
  return { reason: 'connection', retryable: true, message: `unexpected failure: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * True when a 400/422 says the endpoint does not support the requested
 * `response_format` (the trigger for falling back to a simpler JSON mode).
 */
export function isResponseFormatRejection(error: unknown): boolean {
  if (!(error instanceof APIError) || (error.status !== 400 && error.status !== 422)) return false;
  const text = `${error.message} ${error.param ?? ''} ${error.code ?? ''}`;
  return /response_format|json_schema|json_object|structured output/i.test(text);
}

/** A 2xx answer that is not a usable chat completion (no choices, no content, cut-off stream). */
export class MalformedResponseError extends Error {
  /** Tokens the endpoint reported for the unusable reply, when it did. */
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  constructor(message: string, tokens: { promptTokens?: number; completionTokens?: number } = {}) {
    super(message);
    this.name = 'MalformedResponseError';
    if (tokens.promptTokens !== undefined) this.promptTokens = tokens.promptTokens;
    if (tokens.completionTokens !== undefined) this.completionTokens = tokens.completionTokens;
  }
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

function describeCause(error: APIConnectionError): string {
  const cause = (error as { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? ((cause as { cause?: unknown }).cause instanceof Error ? ((cause as { cause: Error }).cause.message) : cause.message) : '';
  return causeText ? `${error.message} (${causeText})` : error.message;
}
