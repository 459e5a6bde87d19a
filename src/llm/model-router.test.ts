import { describe, expect, it } from 'vitest';
import { chooseTier, type TierInput } from './model-router.js';

describe('chooseTier', () => {
  const table: [TierInput, 'small' | 'main', RegExp][] = [
    [{ purpose: 'intent', turnKind: 'simple', query: '你好' }, 'small', /simple turn/],
    [{ purpose: 'answer', turnKind: 'simple', query: 'what can you do for me today, in detail please?' }, 'small', /simple turn/],
    [{ purpose: 'answer', turnKind: 'escalate' }, 'small', /escalate turn/],
    [{ purpose: 'intent', turnKind: 'unknown', query: '帮我订北京的酒店' }, 'small', /short query \(8 CJK characters, limit 12\)/],
    [{ purpose: 'intent', query: '一二三四五六七八九十一二' }, 'small', /12 CJK characters/],
    [{ purpose: 'intent', query: '一二三四五六七八九十一二三' }, 'main', /long query for intent \(13 CJK characters/],
    [{ purpose: 'intent', query: '帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气' }, 'main', /long query/],
    [{ purpose: 'intent', query: 'book a hotel in Shanghai' }, 'small', /24 characters, limit 40/],
    [{ purpose: 'intent', query: 'a'.repeat(40) }, 'small', /40 characters/],
    [{ purpose: 'intent', query: 'a'.repeat(41) }, 'main', /41 characters/],
    [{ purpose: 'intent', query: 'weather 北京' }, 'small', /characters, limit 40/],
    [{ purpose: 'intent', queryLength: 10 }, 'small', /10 characters, limit 12/],
    [{ purpose: 'intent', queryLength: 30 }, 'main', /30 characters, limit 12/],
    [{ purpose: 'intent' }, 'main', /query unknown/],
    [{ purpose: 'plan', turnKind: 'simple', query: 'hi' }, 'main', /planning always uses the main model/],
    [{ purpose: 'plan', turnKind: 'business', query: 'hi' }, 'main', /planning/],
    [{ purpose: 'answer', turnKind: 'business', query: 'hi' }, 'main', /answer of a business turn/],
    [{ purpose: 'summarize', turnKind: 'business' }, 'main', /summarize of a business turn/],
    [{ purpose: 'answer' }, 'main', /main model by default/],
  ];

  it.each(table)('%o -> %s', (input, tier, reason) => {
    const choice = chooseTier(input);
    expect(choice.tier).toBe(tier);
    expect(choice.reason).toMatch(reason);
  });
});
