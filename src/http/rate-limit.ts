/**
 * Per-user rate limit on `/v1/chat` (CONTRACT §3 v2, §1 v3, seed 001): from
 * `supervisor.rate_limit`, a token bucket per API key when keys are on, else
 * per `user_id` (`burst` requests at once, refilled at `per_user_per_minute`
 * per minute); over it `429 RATE_LIMITED` with `retry-after` seconds. The
 * buckets live where the storage backend keeps them (shared across replicas
 * with Redis, in-process otherwise); a new limiter is made when the registry's
 * limits change, so a reload takes effect at once.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UserError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { RateLimitSettings, Registry } from '../registry/types.js';
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
  return (request, _response, next) => {
    const settings = registry.current().supervisor.rateLimit;
    if (!settings) {
      next();
      return;
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const userId = (request.body as { user_id?: unknown } | undefined)?.user_id;
    // The key is hashed: the limiter's store never holds a secret.
    const caller = bearer ? `key:${createHash('sha256').update(bearer).digest('hex').slice(0, 32)}` : `user:${typeof userId === 'string' ? userId : '-'}`;
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
