import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../text/index.js';
import { isFollowUp, refersToPreviousTurn } from './follow-up.js';

describe('follow-up rules', () => {
  it.each(['地址呢？', '那后天呢', '上海呢', '换成从广州出发', '还有别的颜色吗', 'and the day after?', 'what about Shanghai?', 'how much is it per night?'])('%j leans on the previous turn', (query) => {
    expect(isFollowUp(normalizeText(query))).toBe(true);
  });

  it.each(['帮我订北京明天的酒店', '今天股票行情怎么样，能涨吗我想知道具体的情况呢', 'book a hotel in Beijing for tomorrow night please', '', '你好'])('%j stands on its own', (query) => {
    expect(isFollowUp(normalizeText(query))).toBe(false);
  });

  it('notices a place taken from the previous turn', () => {
    expect(refersToPreviousTurn('那边天气怎么样')).toBe(true);
    expect(refersToPreviousTurn('what is the weather there tomorrow')).toBe(true);
    expect(refersToPreviousTurn('北京天气怎么样')).toBe(false);
  });
});
