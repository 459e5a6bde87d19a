/**
 * docs/api.md#conversation-rules, rate limits: with Redis the count is shared by every
 * replica. Two Redis connections stand for two replicas; without Redis each
 * process counts alone (the in-process limiter, shown for contrast).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { silentLogger } from '../../src/logger.js';
import { createMemoryRateLimiter } from '../../src/store/index.js';
import { openRedisSharedState } from '../../src/store/redis/redis-shared-state.js';
import { deleteRedisPrefix, redisAvailable, redisPrefix, TEST_REDIS_URL } from '../support/services.js';

const hasRedis = await redisAvailable();
const prefix = redisPrefix('rate_limit');
afterAll(async () => {
  if (hasRedis) await deleteRedisPrefix(prefix);
});

const settings = { points: 3, durationSeconds: 60, keyPrefix: 'chat:2:1' };

async function outcome(consume: Promise<unknown>): Promise<'allowed' | number> {
  try {
    await consume;
    return 'allowed';
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return rejection.msBeforeNext;
    throw rejection;
  }
}

describe.skipIf(!hasRedis)('rate limits on Redis', () => {
  it('two replicas spend one shared budget per caller; another caller has its own', async () => {
    const replicaA = await openRedisSharedState({ url: TEST_REDIS_URL, prefix, logger: silentLogger });
    const replicaB = await openRedisSharedState({ url: TEST_REDIS_URL, prefix, logger: silentLogger });
    try {
      const limiterA = replicaA.createRateLimiter(settings);
      const limiterB = replicaB.createRateLimiter(settings);
      expect(await outcome(limiterA.consume('user:u1'))).toBe('allowed');
      expect(await outcome(limiterB.consume('user:u1'))).toBe('allowed');
      expect(await outcome(limiterA.consume('user:u1'))).toBe('allowed');
      const refused = await outcome(limiterB.consume('user:u1'));
      expect(refused).not.toBe('allowed');
      expect(refused as number).toBeGreaterThan(0);
      expect(refused as number).toBeLessThanOrEqual(60_000);
      expect(await outcome(limiterB.consume('user:u2'))).toBe('allowed');
    } finally {
      await replicaA.close();
      await replicaB.close();
    }
  });
});

describe('rate limits without Redis', () => {
  it('each process counts on its own', async () => {
    const processA = createMemoryRateLimiter(settings);
    const processB = createMemoryRateLimiter(settings);
    for (let index = 0; index < 3; index += 1) expect(await outcome(processA.consume('user:u1'))).toBe('allowed');
    expect(await outcome(processA.consume('user:u1'))).not.toBe('allowed');
    expect(await outcome(processB.consume('user:u1'))).toBe('allowed');
  });
});
