import { describe, expect, it } from 'vitest';
import { createTokenBuckets } from './rate-limiter.js';

/** Runs `count` requests at the given times (ms) and returns which went through. */
async function run(options: { perMinute: number; burst: number }, times: readonly number[]): Promise<boolean[]> {
  let now = 0;
  const buckets = createTokenBuckets({ ...options, keyPrefix: 't' }, () => now);
  const allowed: boolean[] = [];
  for (const at of times) {
    now = at;
    allowed.push((await buckets.take('user:u1')).allowed);
  }
  return allowed;
}

describe('token bucket rate limit', () => {
  it('{ per_user_per_minute: 5, burst: 5 } lets 5 quick requests through and refuses the 6th, saying when one fits again', async () => {
    let now = 1_000_000;
    const buckets = createTokenBuckets({ perMinute: 5, burst: 5, keyPrefix: 't' }, () => now);
    for (let index = 0; index < 5; index += 1) expect((await buckets.take('user:u1')).allowed).toBe(true);
    const sixth = await buckets.take('user:u1');
    expect(sixth).toEqual({ allowed: false, retryAfterMs: 12_000 });
    now += 12_000;
    expect((await buckets.take('user:u1')).allowed).toBe(true);
    expect((await buckets.take('user:u1')).allowed).toBe(false);
    expect((await buckets.take('user:u2')).allowed).toBe(true);
  });

  it('the sustained rate never exceeds per_user_per_minute: one request a second for 3 minutes gets the 5 of the bucket, then one every 12 s', async () => {
    const times = Array.from({ length: 180 }, (_, second) => second * 1000);
    const allowed = await run({ perMinute: 5, burst: 5 }, times);
    expect(allowed.filter(Boolean).length).toBe(5 + Math.floor(179 / 12));
    // No minute window ever sees more than burst + per-minute.
    for (let start = 0; start + 60 <= 180; start += 1) expect(allowed.slice(start, start + 60).filter(Boolean).length).toBeLessThanOrEqual(10);
    // After the first burst, at most 5 in any later minute.
    for (let start = 60; start + 60 <= 180; start += 1) expect(allowed.slice(start, start + 60).filter(Boolean).length).toBeLessThanOrEqual(5);
  });

  it('a full bucket after a quiet spell allows burst again, never more', async () => {
    const allowed = await run({ perMinute: 60, burst: 3 }, [0, 0, 0, 0, 600_000, 600_000, 600_000, 600_000]);
    expect(allowed).toEqual([true, true, true, false, true, true, true, false]);
  });
});
