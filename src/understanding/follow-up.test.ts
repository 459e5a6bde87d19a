import { describe, expect, it } from 'vitest';
import { normalizeText } from '../text/index.js';
import { createWordOwnership, isFollowUp, refersToPreviousTurn, withoutComparison, withoutPlaceReference } from './follow-up.js';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';

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
    expect(withoutPlaceReference('那边冷吗').trim()).toBe('冷吗');
    expect(withoutPlaceReference('is it cold there?')).not.toMatch(/there/u);
  });

  it('takes the compared attribute and the alternative words out of a short comparison, in both languages', () => {
    expect(withoutComparison('有没有更便宜的')).not.toContain('便宜');
    expect(withoutComparison('便宜一点的呢')).not.toContain('便宜');
    expect(withoutComparison('有没有别的航线')).toContain('航线');
    expect(withoutComparison('换一家')?.trim()).toBe('');
    expect(withoutComparison('any cheaper ones?')).not.toMatch(/cheaper|ones/u);
    expect(withoutComparison('anything else near the airport?')).toContain('airport');
  });

  it('finds no comparison in a request of its own or in a long message', () => {
    expect(withoutComparison('再帮我叫个车去酒店')).toBeUndefined();
    expect(withoutComparison('and when will it arrive?')).toBeUndefined();
    expect(withoutComparison('我想订一家比上次住的那家更便宜而且离地铁站近一些的酒店')).toBeUndefined();
    expect(withoutComparison('could you please find me something a lot cheaper than that one near the station')).toBeUndefined();
  });
});

describe('word ownership', () => {
  const snapshot = snapshotOf([
    card({ id: 'hotel_agent', name: '酒店服务', description: 'hotel booking', examples: ['有没有带早餐的快捷酒店', 'a cheap place near the lake'], keywords: ['酒店', 'hotel'] }),
    card({ id: 'flight_agent', name: '机票服务', description: 'flight search', examples: ['周末有没有便宜的票', 'cheapest airfare to Shanghai'], keywords: ['机票', 'flight'] }),
    card({ id: 'weather_agent', name: '天气查询', description: 'weather forecast', examples: ['北京今天冷吗，要穿羽绒服吗', 'how hot will it be in Guangzhou'], keywords: ['天气', 'weather'] }),
  ]);
  const ownership = createWordOwnership();
  const ownersOf = (text: string) => [...ownership.ownersOf(text, snapshot)];

  it('names the one card whose texts use a word, in both languages', () => {
    expect(ownersOf('冷吗')).toEqual(['weather_agent']);
    expect(ownersOf('冷不冷')).toEqual(['weather_agent']);
    expect(ownersOf('how hot is it')).toEqual(['weather_agent']);
    expect(ownersOf('有没有 航班 机票')).toEqual(['flight_agent']);
  });

  it('names no card for particles, stop words and words several cards use', () => {
    expect(ownersOf('有没有 的')).toEqual([]);
    expect(ownersOf('is it')).toEqual([]);
    expect(ownersOf('服务')).toEqual([]);
  });

  it('skips disabled cards', () => {
    const withoutWeather = snapshotOf(snapshot.agents.map((entry) => (entry.id === 'weather_agent' ? { ...entry, enabled: false } : entry)));
    expect([...ownership.ownersOf('冷吗', withoutWeather)]).toEqual([]);
  });
});
