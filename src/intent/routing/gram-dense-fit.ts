/**
 * The n-gram model's descent over every card at each step (`gram-classifier.ts`), for registries whose
 * n-grams × cards fit in one dense table: a full softmax, no card left out of a text's update.
 */
import { createRandom, shuffleInPlace } from '../../util/index.js';
import type { Encoded, GramClassifierOptions, Weights } from './gram-types.js';

/**
 * The same descent over every card at each step, on one dense table of (n-gram, card) weights: for a registry
 * of tens of cards it costs what the rivals' hash table costs, and no card is left out of a text's softmax.
 */
export function fitDense(documents: readonly Encoded[], featureCount: number, cardCount: number, options: GramClassifierOptions): Weights {
  const epochs = options.epochs ?? 4;
  const learningRate = options.learningRate ?? 1;
  const table = new Float64Array(featureCount * cardCount);
  const scores = new Float64Array(cardCount);
  const random = createRandom(options.seed ?? 7);
  const order = documents.map((_, index) => index);
  for (let epoch = 0; epoch < epochs && cardCount > 1; epoch += 1) {
    shuffleInPlace(order, random);
    const rate = learningRate / (1 + epoch);
    for (const at of order) {
      const { ids, values, card: own } = documents[at]!;
      scores.fill(0);
      for (let index = 0; index < ids.length; index += 1) {
        const row = ids[index]! * cardCount;
        const value = values[index]!;
        for (let card = 0; card < cardCount; card += 1) scores[card]! += value * table[row + card]!;
      }
      let best = -Infinity;
      for (let card = 0; card < cardCount; card += 1) best = Math.max(best, scores[card]!);
      let sum = 0;
      for (let card = 0; card < cardCount; card += 1) sum += scores[card] = Math.exp(scores[card]! - best);
      for (let card = 0; card < cardCount; card += 1) scores[card] = scores[card]! / sum - (card === own ? 1 : 0);
      for (let index = 0; index < ids.length; index += 1) {
        const row = ids[index]! * cardCount;
        const step = rate * values[index]!;
        for (let card = 0; card < cardCount; card += 1) table[row + card]! -= step * scores[card]!;
      }
    }
  }
  const offsets = new Int32Array(featureCount + 1);
  for (let id = 0; id < featureCount; id += 1) {
    let count = 0;
    for (let card = 0; card < cardCount; card += 1) if (table[id * cardCount + card] !== 0) count += 1;
    offsets[id + 1] = offsets[id]! + count;
  }
  const cards = new Int32Array(offsets[featureCount]!);
  const values = new Float32Array(cards.length);
  for (let id = 0, at = 0; id < featureCount; id += 1) {
    for (let card = 0; card < cardCount; card += 1) {
      const weight = table[id * cardCount + card]!;
      if (weight === 0) continue;
      cards[at] = card;
      values[at++] = weight;
    }
  }
  return { offsets, cards, values };
}
