import { describe, expect, it } from 'vitest';
import { buildNearestBaseline } from './nearest-baseline.js';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';

describe('nearest-example baseline', () => {
  const snapshot = snapshotOf([
    card({ id: 'weather_agent', name: '天气', description: 'weather', keywords: ['天气'], examples: ['北京明天天气怎么样', 'will it rain tomorrow'] }),
    card({ id: 'hotel_agent', name: '酒店', description: 'hotels', keywords: ['酒店'], examples: ['帮我订一家酒店', 'book a hotel room for two nights'] }),
    card({ id: 'off_agent', name: 'off', description: 'disabled', keywords: [], examples: ['will it rain in paris'], enabled: false }),
  ]);
  const baseline = buildNearestBaseline(snapshot);

  it('answers with the card of the most similar example, in either language', () => {
    expect(baseline('上海明天天气')).toBe('weather_agent');
    expect(baseline('i need a hotel room')).toBe('hotel_agent');
    expect(baseline('is rain coming tomorrow')).toBe('weather_agent');
  });

  it('reads examples only, of enabled cards, and gives nothing when no word is shared', () => {
    expect(baseline('parking permit renewal')).toBeUndefined();
    expect(baseline('paris')).toBeUndefined();
  });
});
