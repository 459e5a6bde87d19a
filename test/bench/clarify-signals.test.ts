/**
 * The measuring parts of bench/clarify-signals.ts: the area under the ROC
 * curve, the clarification conditions a shortlist misses, and the
 * leave-one-out coverage of a registry's own examples.
 */
import { describe, expect, it } from 'vitest';
import { areaUnderCurve, leaveOneOutCoverage, missedConditions, quantilesText } from '../../bench/clarify-signals.js';
import { loadRegistryText } from '../../src/registry/index.js';
import type { RankShortlist } from '../../src/intent/routing/card-ranker.js';

describe('areaUnderCurve', () => {
  it('is 1 when every positive scores above every negative, 0 the other way round, 0.5 on ties', () => {
    expect(areaUnderCurve([0.9, 0.8], [0.1, 0.2, 0.3])).toBe(1);
    expect(areaUnderCurve([0.1], [0.5, 0.6])).toBe(0);
    expect(areaUnderCurve([0.5, 0.5], [0.5])).toBe(0.5);
  });

  it('counts the pairs a positive wins, ties half', () => {
    // Pairs: 0.4 beats 0.2, ties 0.4, loses to 0.6; 0.7 beats all three → (1 + 0.5 + 3) / 6.
    expect(areaUnderCurve([0.4, 0.7], [0.2, 0.4, 0.6])).toBeCloseTo(4.5 / 6, 10);
  });

  it('is NaN with an empty side', () => {
    expect(areaUnderCurve([], [1])).toBeNaN();
    expect(areaUnderCurve([1], [])).toBeNaN();
  });
});

describe('missedConditions', () => {
  const list = (fields: Partial<RankShortlist>): RankShortlist => ({
    candidates: [{ agentId: 'a', share: 0.6 }],
    covered: 0.5,
    centroid: 0.1,
    shared: 2,
    backing: 0.6,
    separable: false,
    ...fields,
  });

  it('is empty when the clarification would offer options', () => {
    expect(missedConditions(list({}))).toEqual([]);
  });

  it('names each condition missed, in the order the decision reads them', () => {
    expect(missedConditions(list({ backing: 0.2, covered: 0.1, shared: 0 }))).toEqual(['backing 0.20 < 0.3', 'covered 0.10 < 0.3', 'no word in common']);
    expect(missedConditions(list({ candidates: [] }))).toEqual(['no candidate']);
  });
});

describe('leaveOneOutCoverage', () => {
  it('finds an example held by its own card more than by the next card the models back', () => {
    const yaml = `version: 1
agents:
  - id: weather_agent
    name: Weather
    description: Weather forecasts
    examples: ["weather forecast for tomorrow", "will it rain tomorrow", "rain forecast this weekend", "is it going to rain", "weather this weekend"]
    endpoint: { url: "http://127.0.0.1:7400/invoke", protocol: http-json }
  - id: hotel_agent
    name: Hotels
    description: Hotel bookings
    examples: ["book a hotel room", "find a cheap hotel", "hotel room for two nights", "reserve a room downtown", "cheap room near the station"]
    endpoint: { url: "http://127.0.0.1:7401/invoke", protocol: http-json }
`;
    const loaded = loadRegistryText(yaml, 'agents_config.yaml', { env: {} });
    if (!loaded.ok) throw new Error('the test registry does not load');
    const { inScope, pseudoOutOfScope } = leaveOneOutCoverage(loaded.snapshot);
    expect(inScope).toHaveLength(10);
    expect(pseudoOutOfScope).toHaveLength(10);
    const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
    expect(mean(inScope)).toBeGreaterThan(mean(pseudoOutOfScope));
  });
});

describe('quantilesText', () => {
  it('gives the 10th, 25th, 50th, 75th and 90th percentiles', () => {
    expect(quantilesText([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1])).toBe('0.10 / 0.20 / 0.50 / 0.70 / 0.90');
    expect(quantilesText([])).toBe('(none)');
  });
});
