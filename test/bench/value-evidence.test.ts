/**
 * The rule replay of bench/value-evidence.ts: which cards each value rule would offer a line left with nothing.
 */
import { describe, expect, it } from 'vitest';
import { replayValueRules, WRITTEN_TRAVEL_LINES } from '../../bench/value-evidence.js';
import type { RankShortlist } from '../../src/intent/routing/card-ranker.js';

const list = (fields: Partial<RankShortlist>): RankShortlist => ({
  candidates: [{ agentId: 'weather_agent', share: 0.6 }, { agentId: 'hotel_agent', share: 0.3 }, { agentId: 'limo_agent', share: 0.1 }],
  covered: 0.1,
  centroid: 0.01,
  shared: 0,
  backing: 0.5,
  separable: true,
  ...fields,
});

describe('replayValueRules', () => {
  it('offers every card taking a value under the first rule, at most three', () => {
    expect(replayValueRules(list({}), ['hotel_agent', 'weather_agent', 'flight_agent', 'limo_agent']).anyValue).toEqual(['hotel_agent', 'weather_agent', 'flight_agent']);
    expect(replayValueRules(list({}), []).anyValue).toEqual([]);
  });

  it('offers under the second rule only when the first card takes the value, is backed enough and holds some words', () => {
    expect(replayValueRules(list({}), ['weather_agent', 'hotel_agent']).firstCardsValue).toEqual(['weather_agent', 'hotel_agent']);
    expect(replayValueRules(list({}), ['hotel_agent']).firstCardsValue).toEqual([]);
    expect(replayValueRules(list({ backing: 0.2 }), ['weather_agent']).firstCardsValue).toEqual([]);
    expect(replayValueRules(list({ covered: 0 }), ['weather_agent']).firstCardsValue).toEqual([]);
  });

  it('holds written lines on both sides', () => {
    expect(WRITTEN_TRAVEL_LINES.filter((line) => line.expected).length).toBeGreaterThan(0);
    expect(WRITTEN_TRAVEL_LINES.filter((line) => !line.expected).length).toBeGreaterThan(0);
  });
});
