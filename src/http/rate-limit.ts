/**
 * Per-user rate limit on `/v1/chat`, `/a2a` and `/v1/agui` (docs/api.md#conversation-rules, seed 001): from
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

/** The caller a request counts against when no API key admitted it (read from the parsed body). */
export type UnkeyedCaller = (body: unknown) => string;

/** `/v1/chat`: the body's `user_id`. */
export const chatCaller: UnkeyedCaller = (body) => {
  const userId = (body as { user_id?: unknown } | undefined)?.user_id;
  return `user:${typeof userId === 'string' ? userId : '-'}`;
};

/** One limiter per process (shared buckets); `forRoute(caller)` is the check for one route. */
export interface RateLimit {
  forRoute(unkeyedCaller: UnkeyedCaller): RequestHandler;
}

/**
 * Checks the limit for one caller (runs after the body is parsed). `/a2a` and
 * `/v1/agui` share the buckets of `/v1/chat`: with keys on, the key; else the
 * user each route reads from its own body (`unkeyedCaller`).
 */
export function createRateLimit(registry: Registry, metrics: Metrics, createLimiter: RateLimiterFactory): RateLimit {
  let limiter: { settings: RateLimitSettings; store: RateLimiter } | undefined;
  const limiterFor = (settings: RateLimitSettings): RateLimiter => {
    if (!limiter || limiter.settings.perUserPerMinute !== settings.perUserPerMinute || limiter.settings.burst !== settings.burst) {
      limiter = { settings, store: createLimiter({ perMinute: settings.perUserPerMinute, burst: settings.burst, keyPrefix: `chat:${settings.perUserPerMinute}:${settings.burst}` }) };
    }
    return limiter.store;
  };
  return {
    forRoute: (unkeyedCaller) => (request, response, next) => {
      const settings = registry.current().supervisor.rateLimit;
      if (!settings) {
        next();
        return;
      }
      // The key is a digest: the limiter's store never holds a secret.
      const key = authenticatedKey(response);
      const caller = key ? `key:${key}` : unkeyedCaller(request.body);
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
    },
  };
}

/** `/a2a`: the user named in the message's (or request's) metadata, else the context (as the route reads them). */
export const a2aCaller: UnkeyedCaller = (body) => {
  const params = (body as { params?: { message?: { metadata?: { user_id?: unknown }; contextId?: unknown; context_id?: unknown }; metadata?: { user_id?: unknown } } } | undefined)?.params;
  const named = params?.message?.metadata?.user_id ?? params?.metadata?.user_id;
  if (typeof named === 'string') return `user:${named}`;
  const context = params?.message?.contextId ?? params?.message?.context_id;
  return typeof context === 'string' && context !== '' ? `user:a2a:${context}` : 'user:-';
};

/** `/v1/agui`: `forwardedProps.user_id`. */
export const aguiCaller: UnkeyedCaller = (body) => {
  const userId = (body as { forwardedProps?: { user_id?: unknown } } | undefined)?.forwardedProps?.user_id;
  return `user:${typeof userId === 'string' ? userId : '-'}`;
};
