import { describe, expect, it } from 'vitest';
import { card as fixtureCard } from '../../../test/support/registry-fixtures.js';
import { silentLogger } from '../../logger.js';
import type { AgentCard } from '../../registry/types.js';
import { createMemoryKeyValueStore } from '../../store/index.js';
import { isUserSpecific } from './cache-scope.js';
import { createResponseCache, replyCacheKey, type ReplyCacheRequest } from './response-cache.js';

function card(overrides: Partial<AgentCard> = {}): AgentCard {
  return fixtureCard({
    id: 'weather_agent',
    name: '天气查询',
    description: '天气',
    requiredKeys: [{ key: 'city', description: '城市', widget: '', extract: { type: 'enum', values: ['北京', '上海'] } }],
    inputSchema: { type: 'object', properties: { city: { type: 'string' }, date: { type: 'string', format: 'date' } } },
    cacheTtlS: 60,
    ...overrides,
  });
}

function request(overrides: Partial<ReplyCacheRequest> = {}): ReplyCacheRequest {
  return { card: card(), registryVersion: 'v1', userId: 'u1', inputs: { city: '北京', date: '2026-11-23' }, message: '北京明天天气', ...overrides };
}

describe('response cache', () => {
  it('shares a reply across users and sessions when the inputs are not personal, for the TTL only', async () => {
    let clock = 1_000;
    const cache = createResponseCache({ store: createMemoryKeyValueStore({ now: () => clock }), logger: silentLogger });
    expect(await cache.lookup(request())).toBeUndefined();
    await cache.remember(request(), { output: { city: '北京' }, message: '晴' });
    expect(await cache.lookup(request({ userId: 'u2', message: '明天北京天气如何' }))).toMatchObject({ status: 'completed', output: { city: '北京' }, message: '晴' });
    expect(await cache.lookup(request({ inputs: { date: '2026-11-23', city: '北京' } }))).toBeDefined();
    expect(await cache.lookup(request({ inputs: { city: '上海', date: '2026-11-23' } }))).toBeUndefined();
    expect(await cache.lookup(request({ registryVersion: 'v2' }))).toBeUndefined();
    expect(await cache.lookup(request({ userId: 'acme/u1' }))).toBeUndefined(); // another tenant
    clock += 61_000;
    expect(await cache.lookup(request())).toBeUndefined();
  });

  it('never shares a reply between messages that differ in a qualifier the extractor did not capture', () => {
    const weather = card({ keywords: ['天气', '下雨', 'weather'] });
    const today = new Date(2026, 10, 22);
    const key = (message: string, inputs: Record<string, unknown> = { city: '北京' }) => replyCacheKey(request({ card: weather, inputs, message, today }));
    const plain = key('北京天气如何');
    expect(key('北京下个月天气怎么样')).not.toBe(plain);
    expect(key('北京这周末会下雨吗')).not.toBe(plain);
    expect(key('北京明天天气怎么样')).not.toBe(plain); // the date was not captured: it stays a qualifier
    expect(key("what's the weather in 北京 next month")).not.toBe(plain);
    // Wording alone never splits an entry.
    expect(key('北京的天气怎么样？')).toBe(plain);
    const dated = { city: '北京', date: '2026-11-23' };
    expect(key('北京明天天气怎么样', dated)).toBe(key('明天北京的天气如何？', dated));
  });

  it('keeps replies for personal inputs per user', async () => {
    const orderCard = card({
      id: 'order_agent',
      requiredKeys: [{ key: 'order_id', description: '订单号', widget: '', extract: { type: 'phone' } }],
    });
    const cache = createResponseCache({ store: createMemoryKeyValueStore(), logger: silentLogger });
    await cache.remember(request({ card: orderCard, inputs: { order_id: '123' } }), { message: '已发货' });
    expect(await cache.lookup(request({ card: orderCard, inputs: { order_id: '123' } }))).toBeDefined();
    expect(await cache.lookup(request({ card: orderCard, inputs: { order_id: '123' }, userId: 'u2' }))).toBeUndefined();
  });

  it('never caches an agent without cache_ttl_s or with side effects', async () => {
    const cache = createResponseCache({ store: createMemoryKeyValueStore(), logger: silentLogger });
    for (const overrides of [{ cacheTtlS: undefined }, { sideEffects: true }]) {
      const plain = request({ card: card(overrides) });
      await cache.remember(plain, { message: 'x' });
      expect(await cache.lookup(plain)).toBeUndefined();
    }
  });

  it('keys an agent called without inputs on its message', () => {
    const bare = card({ requiredKeys: [], inputSchema: undefined });
    expect(replyCacheKey(request({ card: bare, inputs: {}, message: '营业时间？' }))).not.toBe(replyCacheKey(request({ card: bare, inputs: {}, message: '怎么退货？' })));
    expect(replyCacheKey(request({ card: bare, inputs: {}, message: '营业时间？' }))).toBe(replyCacheKey(request({ card: bare, inputs: {}, message: '营业时间?' })));
  });

  it('treats free text and undeclared inputs as personal', () => {
    expect(isUserSpecific(card(), { city: '北京' })).toBe(false);
    expect(isUserSpecific(card(), { note: '我的会员号 M12345678' })).toBe(true);
    expect(isUserSpecific(card({ requiredKeys: [{ key: 'address', description: '地址', widget: '', extract: { type: 'text' } }] }), { address: '某路1号' })).toBe(true);
  });

  it('reads a failing store as a miss', async () => {
    const failing = { get: async () => Promise.reject(new Error('down')), set: async () => Promise.reject(new Error('down')), setIfAbsent: async () => Promise.reject(new Error('down')), delete: async () => undefined };
    const cache = createResponseCache({ store: failing, logger: silentLogger });
    await cache.remember(request(), { message: 'x' });
    expect(await cache.lookup(request())).toBeUndefined();
  });
});
