import { describe, expect, it } from 'vitest';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';
import { createContentGuard } from './content-guard.js';

describe('createContentGuard', () => {
  const snapshot = snapshotOf([
    card({ id: 'hotel', name: '酒店服务', description: 'hotels' }),
    card({ id: 'hotel-vip', name: '贵宾酒店服务', description: 'vip hotels' }),
    card({ id: 'weather_agent', name: '天气查询', description: 'weather', enabled: false }),
    card({ id: 'a.b', name: '点号服务', description: 'dotted id' }),
  ]);
  const guard = createContentGuard(snapshot);

  it.each([
    ['an id next to Chinese text', '已由hotel处理完毕', '已由酒店服务处理完毕'],
    ['the longer of two overlapping ids', 'see hotel-vip and hotel', 'see 贵宾酒店服务 and 酒店服务'],
    ['every occurrence', 'weather_agent, weather_agent', '天气查询, 天气查询'],
    ['an id with a regex metacharacter, literally', 'a.b but not axb', '点号服务 but not axb'],
    ['nothing inside a longer word', 'hotels, myhotel, hotel_2, weather_agents', 'hotels, myhotel, hotel_2, weather_agents'],
    ['nothing in text without ids', '北京明天晴。', '北京明天晴。'],
  ])('replaces %s', (_label, input, expected) => {
    expect(guard.scrub(input)).toBe(expected);
  });

  it('replaces an id by the agent\'s name in the language asked for, else by its default name', () => {
    const named = snapshotOf([
      card({ id: 'expense_agent', name: '费用报销', names: { en: 'Expense claims' }, description: '报销' }),
      card({ id: 'room_agent', name: '会议室', description: '会议室预订' }),
    ]);
    expect(createContentGuard(named, { namesIn: 'en' }).scrub('expense_agent done; ask room_agent')).toBe('Expense claims done; ask 会议室');
    expect(createContentGuard(named, { namesIn: 'zh' }).scrub('expense_agent done')).toBe('费用报销 done');
    expect(createContentGuard(named).scrub('expense_agent done')).toBe('费用报销 done');
  });

  it('returns text unchanged for an empty registry', () => {
    expect(createContentGuard(snapshotOf([])).scrub('hotel')).toBe('hotel');
  });

  const guarded = snapshotOf([
    card({
      id: 'hotel',
      name: '酒店服务',
      description: 'hotels',
      endpoint: { url: 'http://hotel.internal:8080/invoke', protocol: 'http-json', timeoutMs: 1000, retries: 0, headers: { Authorization: 'Bearer sk-live-123456' } },
    }),
  ]);

  it('replaces an address that contains an id as an address, and header values and their credentials', () => {
    const scrub = createContentGuard(guarded).scrub;
    expect(scrub('hotel failed at http://hotel.internal:8080/invoke')).toBe('酒店服务 failed at [internal address]');
    expect(scrub('host hotel.internal:8080 down')).toBe('host [internal address] down');
    expect(scrub('echo: Bearer sk-live-123456 / sk-live-123456')).toBe('echo: [redacted] / [redacted]');
  });

  it('shows the auth scheme word and ordinary words of a header value, and still hides the token, whole or alone', () => {
    const scrub = createContentGuard(guarded).scrub;
    expect(scrub('请在请求头里使用 Bearer 令牌（Bearer token）。')).toBe('请在请求头里使用 Bearer 令牌（Bearer token）。');
    expect(scrub('Authorization: Bearer sk-live-123456; bearer sk-live-123456')).toBe('Authorization: [redacted]; bearer [redacted]');
  });

  it('streams "Bearer" as it is and never a piece of the token, however the deltas split it', () => {
    const text = '认证方式为 Bearer，令牌 sk-live-123456 已失效，请更新 Bearer 令牌。';
    const guard = createContentGuard(guarded);
    expect(guard.scrub(text)).toBe('认证方式为 Bearer，令牌 [redacted] 已失效，请更新 Bearer 令牌。');
    for (let cut = 1; cut < text.length; cut++) {
      const stream = guard.stream();
      const shown = [stream.push(text.slice(0, cut)), stream.push(text.slice(cut)), stream.flush()];
      for (const piece of shown) expect(piece).not.toMatch(/sk-|live-|123456/);
      expect(shown.join('')).toBe(guard.scrub(text));
    }
  });

  it('replaces made-up ids only when asked, in the language given', () => {
    expect(createContentGuard(guarded).scrub('ask train_agent')).toBe('ask train_agent');
    expect(createContentGuard(guarded, { inventedIdsIn: 'en' }).scrub('ask train_agent')).toBe('ask a related service');
    expect(createContentGuard(guarded, { inventedIdsIn: 'zh' }).scrub('问train_agent')).toBe('问相关服务');
  });

  it('streams: no id, address or header value reaches the user in any delta, and the deltas add up to the scrubbed text', () => {
    const text = '已请 hotel 处理（http://hotel.internal:8080/invoke），令牌 Bearer sk-live-123456 已隐藏，train_agent 不存在。'.repeat(3);
    const whole = createContentGuard(guarded, { inventedIdsIn: 'zh' });
    for (const size of [1, 2, 3, 5, 8, 13, 40]) {
      const stream = whole.stream();
      const shown: string[] = [];
      for (let start = 0; start < text.length; start += size) shown.push(stream.push(text.slice(start, start + size)));
      shown.push(stream.flush());
      for (const piece of shown) expect(piece).not.toMatch(/hotel\b|\.internal|sk-live|_agent/);
      expect(shown.join('')).toBe(whole.scrub(text));
    }
  });
});
