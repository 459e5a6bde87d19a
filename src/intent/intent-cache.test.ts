import { describe, expect, it } from 'vitest';
import { createInMemoryIntentCache, intentCacheKey, normalizeQueryForCache } from './intent-cache.js';
import type { IntentResult } from './types.js';

const RESULT: IntentResult = {
  kind: 'business',
  intents: [{ agentId: 'hotel_agent', score: 0.9 }],
  confidence: 'high',
  reason: 'r',
  rewrittenQuery: '帮我订北京的酒店',
  userFriendlyMessage: '明白了！',
  draftPlan: { query: 'q', task_plan: { sub_tasks: [{ description: 'd', assigned_agent: 'hotel_agent', inputs: { city: '北京' }, dependencies: [] }] } },
};

const KEY_INPUT = { query: '帮我订北京的酒店', registryVersion: 'v1', history: [], pendingAgents: [], day: '2026-11-22' };

describe('intent cache key', () => {
  it('normalises width, CJK punctuation, case and spacing', () => {
    expect(normalizeQueryForCache('  Book A HOTEL，明天 。 ')).toBe('book a hotel,明天.');
    expect(normalizeQueryForCache('book  a hotel , 明天.')).toBe('book a hotel,明天.');
  });

  it('changes with the registry version, the day, the history, the pending agents, the summary and the profile', () => {
    const base = intentCacheKey(KEY_INPUT);
    expect(intentCacheKey({ ...KEY_INPUT, query: ' 帮我订北京的酒店 ' })).toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, registryVersion: 'v2' })).not.toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, day: '2026-11-23' })).not.toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, history: [{ query: 'a', rewrittenQuery: 'a' }] })).not.toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, pendingAgents: ['hotel_agent'] })).not.toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, profile: '- city: 上海' })).not.toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, summary: 'earlier: weather in 北京' })).not.toBe(base);
    expect(intentCacheKey({ ...KEY_INPUT, profile: '', summary: '' })).toBe(base);
  });
});

describe('in-memory intent cache', () => {
  it('returns deep copies both ways', async () => {
    const cache = createInMemoryIntentCache();
    const stored = structuredClone(RESULT);
    await cache.set('k', stored);
    stored.intents[0]!.agentId = 'changed';
    const first = (await cache.get('k'))!;
    expect(first.intents[0]!.agentId).toBe('hotel_agent');
    (first.draftPlan as { query: string }).query = 'changed';
    expect(((await cache.get('k'))!.draftPlan as { query: string }).query).toBe('q');
  });

  it('expires entries after the TTL', async () => {
    let clock = 5000;
    const cache = createInMemoryIntentCache({ ttlMs: 1000, now: () => clock });
    await cache.set('k', RESULT);
    clock = 5999;
    expect(await cache.get('k')).toBeDefined();
    clock = 6001;
    expect(await cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const cache = createInMemoryIntentCache({ maxEntries: 2 });
    await cache.set('a', RESULT);
    await cache.set('b', RESULT);
    await cache.get('a');
    await cache.set('c', RESULT);
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toBeDefined();
    expect(await cache.get('c')).toBeDefined();
  });

  it('rejects unusable options with a message naming them', () => {
    expect(() => createInMemoryIntentCache({ ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => createInMemoryIntentCache({ maxEntries: 1.5 })).toThrow(/maxEntries/);
  });
});
