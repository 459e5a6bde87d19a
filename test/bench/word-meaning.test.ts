import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWordVectors, sentenceVector } from '../../bench/support/word-vectors.js';
import { centroidScorer, discriminantScorer, solveSymmetric, type CardVector } from '../../bench/support/meaning-models.js';

/** A vector file in the package's layout: header fields, the word list, then `vectors` most frequent first. */
function vectorFile(entries: Record<string, number[]>): string {
  const words = Object.keys(entries);
  const vectors = Object.fromEntries(words.map((word, index) => [word, [...entries[word]!, Math.hypot(...entries[word]!), index]]));
  return JSON.stringify({ precision: 8, l2NormIndex: 3, wordIndex: 4, size: words.length, dimensions: 3, words, vectors, unkVector: [0, 0, 0, 0, -1] });
}

describe('loadWordVectors', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'word-vectors-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the most frequent words only, as unit vectors, in frequency order', async () => {
    const file = join(dir, 'vectors.json');
    await writeFile(file, vectorFile({ the: [3, 0, 4], card: [0, 2, 0], refund: [1, 1, 0], zebra: [0, 0, 1] }));
    const vectors = await loadWordVectors({ file, maxWords: 3, log: () => {} });
    expect(vectors?.size).toBe(3);
    expect(vectors?.rowOf('card')).toBe(1);
    expect(vectors?.rowOf('zebra')).toBeUndefined();
    expect(Array.from(vectors!.vectors.subarray(0, 3))).toEqual([0.6000000238418579, 0, 0.800000011920929]);
  });

  it('says why and gives nothing when the file is missing or has no vectors', async () => {
    const said: string[] = [];
    expect(await loadWordVectors({ file: join(dir, 'absent.json'), log: (message) => said.push(message) })).toBeUndefined();
    const empty = join(dir, 'empty.json');
    await writeFile(empty, '{"dimensions":3,"words":[]}');
    expect(await loadWordVectors({ file: empty, log: (message) => said.push(message) })).toBeUndefined();
    expect(said).toHaveLength(2);
    expect(said[1]).toMatch(/no "vectors" object/);
  });

  it('weighs rare words above frequent ones in a sentence vector', async () => {
    const file = join(dir, 'vectors.json');
    await writeFile(file, vectorFile({ the: [1, 0, 0], card: [0, 1, 0] }));
    const vectors = (await loadWordVectors({ file, log: () => {} }))!;
    const sentence = sentenceVector(vectors, 'The CARD!');
    expect(sentence[1]!).toBeGreaterThan(sentence[0]!);
    expect(Math.hypot(...sentence)).toBeCloseTo(1, 6);
    expect(Array.from(sentenceVector(vectors, 'unknown words'))).toEqual([0, 0, 0]);
  });
});

describe('meaning models', () => {
  it('solves a symmetric positive definite system', () => {
    const x = solveSymmetric(Float64Array.from([4, 2, 2, 3]), 2, Float64Array.from([2, 1]), 1);
    expect(x[0]).toBeCloseTo(0.5, 9);
    expect(x[1]).toBeCloseTo(0, 9);
  });

  it('ranks the card whose texts a query lies among first', () => {
    const texts: CardVector[] = [
      { vector: Float64Array.from([1, 0.1]), card: 0 },
      { vector: Float64Array.from([1, -0.1]), card: 0 },
      { vector: Float64Array.from([0.1, 1]), card: 1 },
      { vector: Float64Array.from([-0.1, 1]), card: 1 },
    ];
    const query = Float64Array.from([0.2, 0.98]);
    for (const scorer of [centroidScorer(texts, 2, 2), discriminantScorer(texts, 2, 2)]) {
      const scores = scorer(query);
      expect(scores[1]!).toBeGreaterThan(scores[0]!);
    }
  });
});
