import { describe, expect, it } from 'vitest';
import { shortlistOf } from './shortlist.js';
import type { ExampleScores } from './example-index.js';

/** Example-model scores whose posterior, tempered by 10, gives the cards `tempered` (0.7, 0.25, 0.05 …). */
function scoresWith(tempered: number[], covered: number[]): ExampleScores {
  const raw = tempered.map((share) => share ** 10);
  const sum = raw.reduce((total, value) => total + value, 0);
  const zeros = () => new Float64Array(tempered.length);
  return {
    score: zeros(),
    nearest: zeros(),
    centroid: Float64Array.from(covered, (value) => value / 2),
    posterior: Float64Array.from(raw, (value) => value / sum),
    strong: Uint8Array.from(covered, (value) => (value > 0 ? 1 : 0)),
    familiar: 1,
    covered: Float64Array.from(covered),
  };
}

describe('shortlistOf', () => {
  it('orders by the product of the two models: a card both back beats one only the example model likes', () => {
    // Example model: A 0.7, B 0.25, C 0.05; n-gram model: A 0.02, B 0.4, C 0.58. Averaged, A would come first.
    const list = shortlistOf(scoresWith([0.7, 0.25, 0.05], [0.6, 0.3, 0.1]), Float64Array.from([0.02, 0.4, 0.58]), 3);
    expect(list.entries.map((entry) => entry.cardIndex)).toEqual([1, 2, 0]);
    expect(list.entries.reduce((total, entry) => total + entry.share, 0)).toBeCloseTo(1, 6);
    // How sure and how near are read on the card the two back most on average (A): its mean share and coverage.
    expect(list.backing).toBeCloseTo(0.5 * 0.7 + 0.5 * 0.02, 3);
    expect(list.covered).toBeCloseTo(0.6, 6);
    expect(list.shared).toBe(1);
    // …and that card is named, though the product ranks it last.
    expect(list.backed).toBe(0);
  });

  it('uses the example model alone when the n-gram model knows nothing of the text', () => {
    const list = shortlistOf(scoresWith([0.7, 0.25, 0.05], [0.6, 0.3, 0.1]), new Float64Array(3), 2);
    expect(list.entries.map((entry) => entry.cardIndex)).toEqual([0, 1]);
    expect(list.entries[0]!.share).toBeCloseTo(0.7, 3);
    expect(list.backing).toBeCloseTo(0.7, 3);
  });

  it('returns nothing for a registry with no cards', () => {
    expect(shortlistOf(scoresWith([], []), new Float64Array(0), 3)).toMatchObject({ entries: [], backing: 0, covered: 0, backed: -1 });
  });
});
