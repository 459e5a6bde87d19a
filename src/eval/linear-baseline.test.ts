import { describe, expect, it } from 'vitest';
import { buildLinearBaseline, ngramFeatures } from './linear-baseline.js';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';

describe('linear character n-gram baseline', () => {
  const snapshot = snapshotOf([
    card({ id: 'weather_agent', name: '天气', description: 'weather', keywords: ['天气'], examples: ['北京明天天气怎么样', 'will it rain tomorrow', 'is it raining in paris', '下雨吗'] }),
    card({ id: 'hotel_agent', name: '酒店', description: 'hotels', keywords: ['酒店'], examples: ['帮我订一家酒店', 'book a hotel room for two nights', 'I need a room tonight'] }),
    card({ id: 'off_agent', name: 'off', description: 'disabled', keywords: [], examples: ['will it rain in rome'], enabled: false }),
  ]);
  const classify = buildLinearBaseline(snapshot);

  it('learns from the examples only, sub-word pieces included ("rainy" meets "rain", "订个酒店" meets "订一家酒店")', () => {
    expect(classify('rainy tomorrow?')).toBe('weather_agent');
    expect(classify('订个酒店')).toBe('hotel_agent');
    expect(classify('rooms for tonight')).toBe('hotel_agent');
  });

  it('never answers a disabled card, and answers nothing when no feature is known', () => {
    expect(classify('will it rain in rome')).toBe('weather_agent');
    expect(classify('zzz qqq')).toBeUndefined();
  });

  it('is the same on every run (seeded order)', () => {
    const again = buildLinearBaseline(snapshot);
    for (const query of ['rain or room', '明天酒店', 'book weather']) expect(again(query)).toBe(classify(query));
  });

  it('normalises each text to length 1', () => {
    const values = [...ngramFeatures('book a hotel').values()];
    expect(values.reduce((sum, value) => sum + value * value, 0)).toBeCloseTo(1);
  });
});
