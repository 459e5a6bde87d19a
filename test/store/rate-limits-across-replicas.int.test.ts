/**
 * docs/api.md#conversation-rules, rate limits: with Redis the token bucket is shared by every
 * replica. Two Redis connections stand for two replicas; without Redis each
 * process keeps its own buckets (shown for contrast).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logger.js';
import { createMemoryRateLimiter } from '../../src/store/index.js';
import { openRedisSharedState } from '../../src/store/redis/redis-shared-state.js';
import { deleteRedisPrefix, redisAvailable, redisPrefix, TEST_REDIS_URL } from '../support/services.js';

const hasRedis = await redisAvailable();
const prefix = redisPrefix('rate_limit');
afterAll(async () => {
  if (hasRedis) await deleteRedisPrefix(prefix);
});

/** 3 at once, then one every 20 s. */
const settings = { perMinute: 3, burst: 3, keyPrefix: 'chat:3:3' };

describe.skipIf(!hasRedis)('rate limits on Redis', () => {
  it('two replicas spend one shared bucket per caller; another caller has its own', async () => {
    const replicaA = await openRedisSharedState({ url: TEST_REDIS_URL, prefix, logger: silentLogger });
    const replicaB = await openRedisSharedState({ url: TEST_REDIS_URL, prefix, logger: silentLogger });
    try {
      const limiterA = replicaA.createRateLimiter(settings);
      const limiterB = replicaB.createRateLimiter(settings);
      expect((await limiterA.take('user:u1')).allowed).toBe(true);
      expect((await limiterB.take('user:u1')).allowed).toBe(true);
      expect((await limiterA.take('user:u1')).allowed).toBe(true);
      const refused = await limiterB.take('user:u1');
      expect(refused.allowed).toBe(false);
      // One request fits again after one refill interval (20 s), not after a whole minute.
      expect(refused.retryAfterMs).toBeGreaterThan(19_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(20_000);
      expect((await limiterB.take('user:u2')).allowed).toBe(true);
    } finally {
      await replicaA.close();
      await replicaB.close();
    }
  });
});

describe('rate limits without Redis', () => {
  it('each process keeps its own buckets', async () => {
    const processA = createMemoryRateLimiter(settings);
    const processB = createMemoryRateLimiter(settings);
    for (let index = 0; index < 3; index += 1) expect((await processA.take('user:u1')).allowed).toBe(true);
    expect((await processA.take('user:u1')).allowed).toBe(false);
    expect((await processB.take('user:u1')).allowed).toBe(true);
  });
});
