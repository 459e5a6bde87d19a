import { describe, expect, it } from 'vitest';
import { buildExampleIndex } from './example-index.js';

const cards = [
  { examples: ['reserve a train ticket', 'arrange a train ticket for friday'], descriptions: [] },
  { examples: ['status of my train ticket', 'progress of the train ticket'], descriptions: [] },
  { examples: ['book a hotel room', 'reserve a hotel room', 'arrange a hotel room'], descriptions: [] },
  { examples: ['book a flight', 'reserve a flight', 'arrange a flight'], descriptions: [] },
  { examples: ['status of my flight', 'progress of my flight'], descriptions: [] },
];

function best(posterior: Float64Array): number {
  return posterior.indexOf(Math.max(...posterior));
}

describe('feature expansion', () => {
  it('lets a word a card never uses count through the words the registry uses the same way', () => {
    // "book" is never in the train booking card's examples, only its stand-ins "reserve" and "arrange" are.
    const plain = buildExampleIndex(cards, { expansion: false }).score('book a train ticket');
    const expanded = buildExampleIndex(cards).score('book a train ticket');
    expect(best(expanded.posterior)).toBe(0);
    expect(expanded.posterior[0]! / expanded.posterior[1]!).toBeGreaterThan(plain.posterior[0]! / plain.posterior[1]!);
  });

  it('keeps a card\'s own words decisive', () => {
    const index = buildExampleIndex(cards);
    expect(best(index.score('progress of my train ticket').posterior)).toBe(1);
    expect(best(index.score('status of my flight').posterior)).toBe(4);
  });
});
