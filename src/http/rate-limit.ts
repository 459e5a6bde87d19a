/**
 * Per-user rate limit on `/v1/chat` (docs/api.md#conversation-rules, seed 001): from
 * `supervisor.rate_limit`, a token bucket per API key when keys are on (the
 * key the request was admitted with), else per `user_id` (an Authorization
 * header nobody checked names no caller): `burst` requests at once, refilled at
 * `per_user_per_minute` per minute; over it `429 RATE_LIMITED` with
 * `retry-after` seconds. The buckets live where the storage backend keeps them
 * (shared across replicas with Redis, in-process otherwise); a new limiter is
 * made when the registry's limits change, so a reload takes effect at once.
 */
import type { RequestHandler } from 'express';
import { UserError } from '../errors.js';
import { authenticatedKey } from './auth.js';
import type { Metrics } from '../metrics.js';
import type { RateLimitSettings, Registry } from '../registry/index.js';
import type { RateLimiter, RateLimiterFactory } from '../store/index.js';

/** Checks the limit for one caller (runs after the body is parsed). */
export function createRateLimit(registry: Registry, metrics: Metrics, createLimiter: RateLimiterFactory): RequestHandler {
  let limiter: { settings: RateLimitSettings; store: RateLimiter } | undefined;
  const limiterFor = (settings: RateLimitSettings): RateLimiter => {
    if (!limiter || limiter.settings.perUserPerMinute !== settings.perUserPerMinute || limiter.settings.burst !== settings.burst) {
      limiter = { settings, store: createLimiter({ perMinute: settings.perUserPerMinute, burst: settings.burst, keyPrefix: `chat:${settings.perUserPerMinute}:${settings.burst}` }) };
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
      .take(caller)
      .then((decision) => {
        if (decision.allowed) {
          next();
          return;
        }
        metrics.guardStops.inc({ guard: 'rate_limit' });
        const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
        next(new UserError('RATE_LIMITED', `too many requests: at most ${settings.perUserPerMinute} per minute (${settings.burst} at once); retry in ${retryAfterSeconds} s`, { retryAfterSeconds }));
      })
      .catch((error: unknown) => next(error));
  };
}
