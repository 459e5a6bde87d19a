/**
 * The circuit breaker in front of a model endpoint (opossum). A dead or
 * overloaded endpoint then costs callers nothing: while the circuit is open,
 * attempts reject at once with opossum's `EOPENBREAKER` and the gateway turns
 * that into `LlmCallError('circuit_open')`.
 */
import CircuitBreaker from 'opossum';
import type { Logger } from '../logger.js';

/** When the circuit breaker opens and how long it stays open. */
export interface CircuitBreakerOptions {
  /** Attempts that must have been made in the window before the circuit may open. Default 5. */
  failureThreshold?: number;
  /** Share of failed attempts in the window, in percent, above which it opens. Default 50. */
  errorThresholdPercentage?: number;
  /** Time open before one trial attempt is let through. Default 30 000 ms. */
  resetTimeoutMs?: number;
  /** Length of the rolling window of attempt statistics. Default 60 000 ms. */
  windowMs?: number;
}

/** Thrown inside an attempt when the caller aborted, so the breaker can ignore it. */
export class CallerAbortedError extends Error {
  constructor() {
    super('aborted by the caller');
    this.name = 'CallerAbortedError';
  }
}

/**
 * A breaker that runs attempts (`breaker.fire(attempt)`) and opens once
 * `failureThreshold` attempts were made in the window and more than
 * `errorThresholdPercentage` of them failed. Caller aborts and request
 * refusals (4xx other than 408/429) count as successes: they say nothing about
 * the endpoint's health.
 */
export function createEndpointBreaker<T>(settings: CircuitBreakerOptions, logger: Logger): CircuitBreaker<[() => Promise<T>], T> {
  const breaker = new CircuitBreaker<[() => Promise<T>], T>((attempt: () => Promise<T>) => attempt(), {
    name: 'llm-endpoint',
    timeout: false,
    volumeThreshold: settings.failureThreshold ?? 5,
    errorThresholdPercentage: settings.errorThresholdPercentage ?? 50,
    resetTimeout: settings.resetTimeoutMs ?? 30_000,
    rollingCountTimeout: settings.windowMs ?? 60_000,
    rollingCountBuckets: 10,
    // Not the endpoint's fault: the caller gave up, or the request itself was refused.
    errorFilter: (error: unknown) => error instanceof CallerAbortedError || isRequestRefusal(error),
  });
  breaker.on('open', () => logger.error({ circuit: 'llm-endpoint' }, 'model endpoint circuit opened; failing fast'));
  breaker.on('halfOpen', () => logger.info({ circuit: 'llm-endpoint' }, 'model endpoint circuit half-open; trying one call'));
  breaker.on('close', () => logger.info({ circuit: 'llm-endpoint' }, 'model endpoint circuit closed'));
  return breaker;
}

function isRequestRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;
}
