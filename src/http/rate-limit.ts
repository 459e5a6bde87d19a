/**
 * Per-user rate limit on `/v1/chat` (docs/api.md#conversation-rules, seed 001): from
 * `supervisor.rate_limit`, counted per API key when keys are on, else per
 * `user_id`; over it `429 RATE_LIMITED` with `retry-after` seconds. Counting
 * is `rate-limiter-flexible`'s, in the store the storage backend gives
 * (shared across replicas with Redis, in-process otherwise); a new limiter is made when
 * the registry's limits change, so a reload takes effect at once.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { UserError } from '../errors.js';
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
