/**
 * Per-user rate limit on `/v1/chat` (docs/api.md#conversation-rules, seed 001): from
 * `supervisor.rate_limit`, counted per API key when keys are on (the key the
 * request was admitted with), else per `user_id` (an Authorization header
 * nobody checked names no caller); over it `429 RATE_LIMITED` with `retry-after` seconds. Counting
 * is `rate-limiter-flexible`'s, in the store the storage backend gives
 * (shared across replicas with Redis, in-process otherwise); a new limiter is made when
 * the registry's limits change, so a reload takes effect at once.
 */
import type { RequestHandler } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { UserError } from '../errors.js';
import { authenticatedKey } from './auth.js';
import type { Metrics } from '../metrics.js';
import type { RateLimitSettings, Registry } from '../registry/types.js';
import type { RateLimiterFactory } from '../store/index.js';

/** Checks the limit for one caller (runs after the body is parsed). */
export function createRateLimit(registry: Registry, metrics: Metrics, createLimiter: RateLimiterFactory): RequestHandler {
  let limiter: { settings: RateLimitSettings; store: RateLimiterAbstract } | undefined;
  const limiterFor = (settings: RateLimitSettings): RateLimiterAbstract => {
    if (!limiter || limiter.settings.perUserPerMinute !== settings.perUserPerMinute || limiter.settings.burst !== settings.burst) {
      limiter = { settings, store: createLimiter({ points: settings.perUserPerMinute + settings.burst, durationSeconds: 60, keyPrefix: `chat:${settings.perUserPerMinute}:${settings.burst}` }) };
    }
    return limiter.store;
  };
  return (request, response, next) => {
    const settings = registry.current().supervisor.rateLimit;
    if (!settings) {
      next();
      return;
    }
    // The key is a digest: the limiter's store never holds a secret.
    const key = authenticatedKey(response);
    const userId = (request.body as { user_id?: unknown } | undefined)?.user_id;
    const caller = key ? `key:${key}` : `user:${typeof userId === 'string' ? userId : '-'}`;
    limiterFor(settings)
      .consume(caller)
      .then(() => next())
      .catch((rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) {
          next(rejection);
          return;
        }
        metrics.guardStops.inc({ guard: 'rate_limit' });
        const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        next(new UserError('RATE_LIMITED', `too many requests: at most ${settings.perUserPerMinute} per minute (burst ${settings.burst}); retry in ${retryAfterSeconds} s`, { retryAfterSeconds }));
      });
  };
}
