/**
 * The one error a model call rejects with. Callers (intent, planner, summary)
 * catch it and fall back to the offline path; `reason` says why without
 * parsing messages.
 */
import { SystemError, UserError } from '../errors.js';

/** Why a model call failed. */
export type LlmFailureReason =
  /** LLM mode is off (no model or base URL configured). */
  | 'disabled'
  /** The circuit breaker is open after repeated failures: failing fast. */
  | 'circuit_open'
  /** The caller's signal aborted the call; never retried. */
  | 'aborted'
  /** No answer within the per-call timeout (after retries). */
  | 'timeout'
  /** 429 from the endpoint (after retries). */
  | 'rate_limited'
  /** 5xx from the endpoint (after retries). */
  | 'server_error'
  /** The endpoint could not be reached (after retries). */
  | 'connection'
  /** The endpoint answered 2xx with a body that is not a chat completion. */
  | 'malformed'
  /** The endpoint refused the request (4xx other than 408/429): retrying will not help. */
  | 'rejected'
  /** The call options themselves are invalid (a bug in the caller). */
  | 'invalid_request'
  /** The turn's token or time budget is used up: the call was not made (or was cut). */
  | 'budget_exhausted';

/** A failed model call; `attempts` counts the HTTP requests that were made. */
export class LlmCallError extends SystemError {
  readonly reason: LlmFailureReason;
  readonly attempts: number;
  /** HTTP status of the last failed response, when there was one. */
  readonly status?: number;

  constructor(reason: LlmFailureReason, message: string, details: { attempts?: number; status?: number; cause?: unknown } = {}) {
    super(reason === 'disabled' || reason === 'circuit_open' ? 'NOT_READY' : 'INTERNAL', message, { cause: details.cause });
    this.name = 'LlmCallError';
    this.reason = reason;
    this.attempts = details.attempts ?? 0;
    this.status = details.status;
  }
}

/** A gateway configuration value (options or environment) that cannot be used: the operator's to fix. */
export class LlmConfigError extends UserError {
  constructor(message: string) {
    super('LLM_CONFIG_INVALID', message);
    this.name = 'LlmConfigError';
  }
}
