/**
 * Counters for rate limits (docs/api.md#conversation-rules), made by the
 * storage backend so that they are shared exactly as far as the backend
 * reaches: in-process on SQLite or Postgres alone, across every replica with
 * Redis. Counting is `rate-limiter-flexible`'s; nothing here is hand-written.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** How many points a caller may spend per window. */
export interface RateLimiterOptions {
  points: number;
  durationSeconds: number;
  /** Separates limiters (and their settings) from each other. */
  keyPrefix: string;
}

/** Makes a limiter; each call gives a new one (a changed setting makes a new limiter). */
export type RateLimiterFactory = (options: RateLimiterOptions) => RateLimiterAbstract;

/** In-process counting: one replica only. */
export const createMemoryRateLimiter: RateLimiterFactory = (options) =>
  new RateLimiterMemory({ points: options.points, duration: options.durationSeconds, keyPrefix: options.keyPrefix });

/**
 * Counting in Redis, shared by every replica on it. While Redis does not
 * answer, an in-process limiter with the same settings takes over, so an
 * outage neither stops nor unlimits the server.
 */
export function createRedisRateLimiterFactory(client: Redis, prefix: string): RateLimiterFactory {
  return (options) =>
    new RateLimiterRedis({
      storeClient: client,
      points: options.points,
      duration: options.durationSeconds,
      keyPrefix: `${prefix}rl:${options.keyPrefix}`,
      insuranceLimiter: createMemoryRateLimiter(options) as RateLimiterMemory,
    });
}
