/**
 * Rate limits as token buckets (docs/api.md#conversation-rules), made by the
 * storage backend so that they are shared exactly as far as the backend
 * reaches: in-process on SQLite or Postgres alone, across every replica with
 * Redis.
 *
 * A caller's bucket holds at most `burst` requests and refills at `perMinute`
 * per minute: `{ 5, 5 }` lets 5 quick requests through and refuses the 6th,
 * and over any stretch of time at most `burst + perMinute × minutes` get
 * through, so the sustained rate never exceeds `perMinute`. The bucket is
 * kept as one number per caller, the time at which it would be full again
 * (the "theoretical arrival time" of the generic cell rate algorithm, which
 * is the same bucket): a request adds one interval (60 s / perMinute) to it,
 * and is refused when that would put it more than `burst` intervals ahead of
 * now; the refusal says how long until one request fits.
 */
import type { Redis } from 'ioredis';

/** One bucket per caller: `burst` requests at most, refilled at `perMinute` per minute. */
export interface RateLimiterOptions {
  perMinute: number;
  /** Requests the bucket holds (values below 1 are read as 1). */
  burst: number;
  /** Separates limiters (and their settings) from each other. */
  keyPrefix: string;
}

/** Whether one request may go now; when not, how long until one may. */
export interface RateDecision {
  allowed: boolean;
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Takes one request from the caller's bucket. */
  take(caller: string): Promise<RateDecision>;
}

/** Makes a limiter; each call gives a new one (a changed setting makes a new limiter). */
export type RateLimiterFactory = (options: RateLimiterOptions) => RateLimiter;

/** The interval one request costs and the most the bucket may run ahead, in ms. */
function bucketShape(options: RateLimiterOptions): { intervalMs: number; capacityMs: number } {
  const intervalMs = 60_000 / Math.max(1, options.perMinute);
  return { intervalMs, capacityMs: intervalMs * Math.max(1, Math.floor(options.burst)) };
}

/** One step of the bucket: the caller's stored full-again time, now → the decision and the time to store. */
export function takeFromBucket(fullAt: number | undefined, now: number, options: RateLimiterOptions): RateDecision & { fullAt: number } {
  const { intervalMs, capacityMs } = bucketShape(options);
  const next = Math.max(fullAt ?? now, now) + intervalMs;
  if (next - now > capacityMs + 1e-6) return { allowed: false, retryAfterMs: Math.ceil(next - now - capacityMs), fullAt: fullAt ?? now };
  return { allowed: true, retryAfterMs: 0, fullAt: next };
}

/** In-process buckets: one replica only. `now` is for tests. */
export function createTokenBuckets(options: RateLimiterOptions, now: () => number = Date.now): RateLimiter {
  const buckets = new Map<string, number>();
  return {
    async take(caller) {
      const at = now();
      if (buckets.size > 10_000) for (const [key, fullAt] of buckets) if (fullAt <= at) buckets.delete(key);
      const step = takeFromBucket(buckets.get(caller), at, options);
      if (step.allowed) buckets.set(caller, step.fullAt);
      return { allowed: step.allowed, retryAfterMs: step.retryAfterMs };
    },
  };
}

/** In-process counting: one replica only. */
export const createMemoryRateLimiter: RateLimiterFactory = (options) => createTokenBuckets(options);

/** The bucket step on Redis, atomic, on Redis's clock (replicas' clocks may differ). */
const TAKE = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local full_at = tonumber(redis.call('GET', KEYS[1]) or '0')
if full_at < now then full_at = now end
local next_at = full_at + interval
if next_at - now > capacity + 0.000001 then return {0, math.ceil(next_at - now - capacity)} end
redis.call('SET', KEYS[1], tostring(next_at), 'PX', math.max(1, math.ceil(next_at - now)))
return {1, 0}`;

/**
 * Buckets in Redis, shared by every replica on it. While Redis does not
 * answer, in-process buckets with the same settings take over, so an outage
 * neither stops nor unlimits the server.
 */
export function createRedisRateLimiterFactory(client: Redis, prefix: string): RateLimiterFactory {
  return (options) => {
    const { intervalMs, capacityMs } = bucketShape(options);
    const insurance = createTokenBuckets(options);
    return {
      async take(caller) {
        try {
          const [allowed, retryAfterMs] = (await client.eval(TAKE, 1, `${prefix}rl:${options.keyPrefix}:${caller}`, String(intervalMs), String(capacityMs))) as [number, number];
          return { allowed: allowed === 1, retryAfterMs: Number(retryAfterMs) };
        } catch {
          return insurance.take(caller);
        }
      },
    };
  };
}
