import { describe, expect, it } from 'vitest';
import { createPrefetchedProfiles } from './pg-profiles.js';
import type { ProfileUpsert } from './pg-write-behind.js';
import type { ProfileRow } from '../profile-rows.js';

const row = (key: string, value: string, hits = 1): ProfileRow => ({
  fact_key: key,
  value: JSON.stringify(value),
  hits,
  session_id: 's0',
  turn_id: 't0',
  first_seen: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});
const upsert = (key: string, value: string, turnId = 't1'): ProfileUpsert => ({
  userId: 'u1',
  key,
  value: JSON.stringify(value),
  sessionId: 's1',
  turnId,
  firstSeen: '2026-01-02T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
});

describe('profile rows read with a turn start', () => {
  it('are read by every turn of the user within their age, as copies', () => {
    const prefetched = createPrefetchedProfiles();
    prefetched.put('u1', [row('city', '北京')], prefetched.mark());
    const first = prefetched.take('u1')!;
    first[0]!.hits = 99;
    expect(prefetched.take('u1')).toEqual([row('city', '北京')]);
    expect(prefetched.take('u2')).toBeUndefined();
  });

  it('take a write as the upsert statement does: the same value raises hits, another replaces it, a new key is added', () => {
    const prefetched = createPrefetchedProfiles();
    prefetched.put('u1', [row('city', '北京', 2), row('name', '张三')], prefetched.mark());
    prefetched.wrote('u1', [upsert('city', '北京'), upsert('name', '李四'), upsert('airport', 'PEK')]);
    expect(prefetched.take('u1')).toEqual([
      { ...row('airport', 'PEK'), session_id: 's1', turn_id: 't1', first_seen: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' },
      { ...row('city', '北京', 3), session_id: 's1', turn_id: 't1', updated_at: '2026-01-02T00:00:00.000Z' },
      { ...row('name', '李四'), session_id: 's1', turn_id: 't1', first_seen: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-02T00:00:00.000Z' },
    ]);
  });

  it('does not keep rows whose read began before a write of the user (it may have missed it)', () => {
    const prefetched = createPrefetchedProfiles();
    const before = prefetched.mark();
    prefetched.wrote('u1', [upsert('city', '上海')]);
    prefetched.put('u1', [row('city', '北京')], before);
    expect(prefetched.take('u1')).toBeUndefined();
    // Another user's write does not matter.
    const mark = prefetched.mark();
    prefetched.wrote('u2', [upsert('city', '上海')]);
    prefetched.put('u1', [row('city', '北京')], mark);
    expect(prefetched.take('u1')).toEqual([row('city', '北京')]);
    prefetched.forget('u1');
    expect(prefetched.take('u1')).toBeUndefined();
  });

  it('expire after their age', async () => {
    const prefetched = createPrefetchedProfiles(30);
    prefetched.put('u1', [row('city', '北京')], prefetched.mark());
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(prefetched.take('u1')).toBeUndefined();
  });
});
