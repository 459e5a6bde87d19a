/**
 * A discriminative model of the registry's examples, trained when a snapshot is
 * loaded: a softmax (multinomial logistic) regression over character n-grams
 * — Chinese 1- to 3-grams, Latin words and padded 3- to 5-grams of each word,
 * digits and masked slot values left out, L2-normalised. Where the example
 * model (`example-index.ts`) asks how much of a query a card's texts hold, this
 * one has learned which pieces tell one card from the cards it is confused
 * with: "set me up with a flight" is a booking though "flight" is every flight
 * card's word.
 *
 * Training is cheap enough for every reload: the weights are sparse (a feature
 * holds a weight only for the cards it was ever confused between), and each
 * step updates only the cards that take part in the example's softmax (its own
 * card and those scoring above the untouched rest), a few passes in a seeded
 * order. The scores are calibrated on the registry itself: the model is first
 * trained with every fifth example of a card held out, and the temperature
 * that makes those held-out probabilities honest (least log-loss) is kept for
 * the model trained on everything.
 */
import { createRandom, shuffleInPlace } from '../../util/index.js';
import type { TextMask } from './example-features.js';
import { fitDense } from './gram-dense-fit.js';
import type { Encoded, GramClassifierOptions, Weights } from './gram-types.js';

export type { GramClassifierOptions } from './gram-types.js';

/** One training text of a card. */
export interface GramDocument {
  /** In normal form (NFKC). */
  text: string;
  card: number;
  /** Spans to leave out (slot values). */
  masks?: readonly TextMask[];
}


/** The trained model. */
export interface GramClassifier {
  readonly cardCount: number;
  /** The calibrated temperature the scores are divided by. */
  readonly temperature: number;
  /**
   * For each held-out example (`document`: its position in the training documents), at the calibrated
   * temperature: the probability of its own card, and whether that card came first (alone).
   */
  readonly heldOut: readonly { document: number; own: number; first: boolean }[];
  /** False when too few held-out examples came out first (`minHeldOutRight`): every probability is then 0. */
  readonly trusted: boolean;
  /** Per card probability that `text` is its request (sums to 1); all zero when the text has no known feature. */
  probabilities(text: string, masks?: readonly TextMask[]): Float64Array;
}

const TOKEN = /\p{Script=Han}+|[\p{L}]+/gu;
const HAN = /^\p{Script=Han}/u;
const TEMPERATURES = [0.1, 0.15, 0.2, 0.25, 0.35, 0.5, 0.7, 1, 1.4, 2, 2.8, 4];

/**
 * The L2-normalised character n-grams of a text in normal form (NFKC): registry texts are
 * normalised when the model is built (`ranker-model.ts`), a query's units are parts of its normal
 * form. Exported for tests.
 */
export function gramsOf(text: string, masks: readonly TextMask[] = []): Map<string, number> {
  let prepared = text;
  for (const mask of [...masks].sort((a, b) => b.start - a.start)) prepared = `${prepared.slice(0, mask.start)} ${prepared.slice(mask.end)}`;
  const counts = new Map<string, number>();
  const add = (gram: string) => counts.set(gram, (counts.get(gram) ?? 0) + 1);
  for (const [token] of prepared.toLowerCase().matchAll(TOKEN)) {
    if (HAN.test(token)) {
      for (let size = 1; size <= 3; size += 1) for (let at = 0; at + size <= token.length; at += 1) add(token.slice(at, at + size));
      continue;
    }
    add(`w ${token}`);
    const padded = `<${token}>`;
    for (let size = 3; size <= 5; size += 1) for (let at = 0; at + size <= padded.length; at += 1) add(padded.slice(at, at + size));
  }
  let norm = 0;
  for (const count of counts.values()) norm += count * count;
  norm = Math.sqrt(norm) || 1;
  for (const [gram, count] of counts) counts.set(gram, count / norm);
  return counts;
}


/** Trains the model on `documents` over `cardCount` cards. */
export function trainGramClassifier(documents: readonly GramDocument[], cardCount: number, options: GramClassifierOptions = {}): GramClassifier {
  const holdOutEvery = options.holdOutEvery ?? 5;
  const featureIds = new Map<string, number>();
  const encode = (text: string, masks: readonly TextMask[] | undefined, grow: boolean): Encoded => {
    const ids: number[] = [];
    const values: number[] = [];
    for (const [gram, value] of gramsOf(text, masks)) {
      let id = featureIds.get(gram);
      if (id === undefined && grow) featureIds.set(gram, (id = featureIds.size));
      if (id === undefined) continue;
      ids.push(id);
      values.push(value);
    }
    return { ids: Int32Array.from(ids), values: Float64Array.from(values), card: -1 };
  };
  const all = documents.map((document) => ({ ...encode(document.text, document.masks, true), card: document.card }));
  // Large registries get fewer rivals per card, so a pass costs at most about `budget` (n-gram, card) updates.
  let grams = 0;
  for (const document of all) grams += document.ids.length;
  const budget = options.budget ?? 600_000;
  const dense = cardCount * featureIds.size <= (options.denseWeights ?? 2_000_000);
  const rivals = dense ? Math.max(1, cardCount - 1) : Math.max(4, Math.min(options.rivals ?? 24, Math.floor(budget / Math.max(1, grams)) - 1));
  // A step updates a text's own card and its rivals only. An n-gram most cards hold (a sentence frame) would be
  // pushed down for whichever cards happen to be rivals most often: with more cards than a step updates, such
  // n-grams are left out (they tell no card from another anyway). Their share of a text's length still counts,
  // so a text made of them stays unconfident.
  const kept = new Uint8Array(featureIds.size).fill(1);
  if (cardCount > rivals + 1) {
    const holders = new Int32Array(featureIds.size);
    const lastCard = new Int32Array(featureIds.size).fill(-1);
    for (const { ids, card } of all) for (const id of ids) if (lastCard[id] !== card) (lastCard[id] = card), (holders[id]! += 1);
    holders.forEach((count, id) => (kept[id] = count > cardCount / 2 ? 0 : 1));
  }
  const onlyKept = (document: Encoded): Encoded => {
    let count = 0;
    for (const id of document.ids) count += kept[id]!;
    if (count === document.ids.length) return document;
    const ids = new Int32Array(count);
    const values = new Float64Array(count);
    for (let index = 0, at = 0; index < document.ids.length; index += 1) {
      if (kept[document.ids[index]!] === 0) continue;
      ids[at] = document.ids[index]!;
      values[at++] = document.values[index]!;
    }
    return { ids, values, card: document.card };
  };
  const encoded = all.map(onlyKept);
  // Calibration: every n-th example of a card held out, the rest trained on, the temperature fitted on the held-out.
  let temperature = 1;
  let heldOut: { document: number; own: number; first: boolean }[] = [];
  if (holdOutEvery > 1 && cardCount > 1) {
    const seen = new Map<number, number>();
    const train: Encoded[] = [];
    const held: Encoded[] = [];
    const heldAt: number[] = [];
    encoded.forEach((document, at) => {
      const position = seen.get(document.card) ?? 0;
      seen.set(document.card, position + 1);
      if (position % holdOutEvery !== holdOutEvery - 1) return void train.push(document);
      held.push(document);
      heldAt.push(at);
    });
    if (held.length >= 8) {
      const weights = dense ? fitDense(train, featureIds.size, cardCount, options) : fit(train, featureIds.size, cardCount, options, rivalsOf(train, featureIds.size, cardCount, rivals));
      const logits = held.map((document) => ({ scores: scoresOf(weights, document.ids, document.values, cardCount), card: document.card }));
      let best = Infinity;
      for (const candidate of TEMPERATURES) {
        let loss = 0;
        for (const { scores, card } of logits) loss += logLoss(scores, card, candidate);
        if (loss < best) [best, temperature] = [loss, candidate];
      }
      heldOut = logits.map(({ scores, card }, index) => {
        const probabilities = softmax(scores, temperature);
        // First alone: a tie (a text with nothing the model knows) is not a right answer.
        return { document: heldAt[index]!, own: probabilities[card]!, first: probabilities.every((value, other) => other === card || value < probabilities[card]!) };
      });
    }
  }
  // Held out and too often wrong: the model trained on everything would not be used, so it is not trained.
  const minHeldOutRight = options.minHeldOutRight ?? 0;
  const right = heldOut.filter((example) => example.first).length;
  const trusted = heldOut.length === 0 ? minHeldOutRight === 0 : right >= minHeldOutRight * heldOut.length;
  const weights = !trusted ? undefined : dense ? fitDense(encoded, featureIds.size, cardCount, options) : fit(encoded, featureIds.size, cardCount, options, rivalsOf(encoded, featureIds.size, cardCount, rivals));
  return {
    cardCount,
    temperature,
    heldOut,
    trusted,
    probabilities(text, masks) {
      const query = onlyKept(encode(text, masks, false));
      if (!weights || query.ids.length === 0 || cardCount === 0) return new Float64Array(cardCount);
      return softmax(scoresOf(weights, query.ids, query.values, cardCount), temperature);
    },
  };
}


function scoresOf(weights: Weights, ids: Int32Array, values: Float64Array, cardCount: number): Float64Array {
  const scores = new Float64Array(cardCount);
  for (let index = 0; index < ids.length; index += 1) {
    const id = ids[index]!;
    const value = values[index]!;
    for (let at = weights.offsets[id]!, end = weights.offsets[id + 1]!; at < end; at += 1) scores[weights.cards[at]!]! += value * weights.values[at]!;
  }
  return scores;
}

/** −log of the probability of `card` at `temperature`, without building the distribution. */
function logLoss(scores: Float64Array, card: number, temperature: number): number {
  let best = -Infinity;
  for (const score of scores) best = Math.max(best, score);
  let sum = 0;
  for (const score of scores) sum += Math.exp((score - best) / temperature);
  return Math.log(sum) - (scores[card]! - best) / temperature;
}

function softmax(scores: Float64Array, temperature: number): Float64Array {
  const out = new Float64Array(scores.length);
  let best = -Infinity;
  for (const score of scores) best = Math.max(best, score);
  let sum = 0;
  for (let card = 0; card < scores.length; card += 1) sum += out[card] = Math.exp((scores[card]! - best) / temperature);
  for (let card = 0; card < scores.length; card += 1) out[card]! /= sum;
  return out;
}

/**
 * The cards each card's texts are told apart from: itself first, then the `rivals` cards whose summed
 * n-grams are the closest to its own (cosine), found once before training.
 */
function rivalsOf(documents: readonly Encoded[], featureCount: number, cardCount: number, rivals: number): Int32Array[] {
  // Each card's summed n-grams, as rows of (feature, mass), and per feature the cards holding it.
  const mass: Map<number, number>[] = [];
  for (let card = 0; card < cardCount; card += 1) mass.push(new Map());
  for (const { ids, values, card } of documents) {
    const own = mass[card]!;
    for (let index = 0; index < ids.length; index += 1) own.set(ids[index]!, (own.get(ids[index]!) ?? 0) + values[index]!);
  }
  const holders: { card: number; mass: number }[][] = Array.from({ length: featureCount }, () => []);
  const norms = new Float64Array(cardCount);
  mass.forEach((own, card) => {
    for (const [id, value] of own) {
      holders[id]!.push({ card, mass: value });
      norms[card]! += value * value;
    }
  });
  // An n-gram many cards hold (a sentence frame) makes them all alike: it says nothing about which are rivals
  // (and walking its long list for every card would cost cards × cards).
  const common = Math.max(2, Math.min(cardCount / 2, 4 * (rivals + 1)));
  for (let id = 0; id < featureCount; id += 1) if (holders[id]!.length > common) holders[id] = [];
  const shared = new Float64Array(cardCount);
  return mass.map((own, card) => {
    shared.fill(0);
    for (const [id, value] of own) for (const holder of holders[id]!) shared[holder.card]! += value * holder.mass;
    // Cosine over the whole of each card's n-grams, so a card with many texts is not everyone's rival.
    for (let other = 0; other < cardCount; other += 1) shared[other] = shared[other]! / Math.sqrt(norms[card]! * norms[other]! || 1);
    shared[card] = -1;
    const chosen = [card];
    for (let round = 0; round < rivals; round += 1) {
      let best = -1;
      for (let other = 0; other < cardCount; other += 1) if (shared[other]! > 0 && (best < 0 || shared[other]! > shared[best]!)) best = other;
      if (best < 0) break;
      chosen.push(best);
      shared[best] = -1;
    }
    return Int32Array.from(chosen);
  });
}

/**
 * Stochastic gradient descent on the softmax loss of each text over its own card and its rivals (`rivalsOf`):
 * a step costs the text's n-grams times a few cards, whatever the size of the registry. Weights live in one
 * open-addressing table keyed by (feature, card), turned into compressed rows at the end.
 */
function fit(documents: readonly Encoded[], featureCount: number, cardCount: number, options: GramClassifierOptions, candidates: readonly Int32Array[]): Weights {
  const epochs = options.epochs ?? 4;
  const learningRate = options.learningRate ?? 1;
  // The table grows (rehashing its keys) while it is more than half full, so it stays small enough to be fast.
  let bits = 12;
  let keys = new Int32Array(2 ** bits).fill(-1);
  let used = 0;
  const find = (key: number): number => {
    const mask = keys.length - 1;
    // Fibonacci hashing: the high bits of the product spread keys that differ anywhere.
    let slot = Math.imul(key, 0x9e3779b1) >>> (32 - bits);
    while (keys[slot] !== -1 && keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  };
  const insert = (key: number): void => {
    const slot = find(key);
    if (keys[slot] === key) return;
    keys[slot] = key;
    used += 1;
    if (used * 2 <= keys.length) return;
    const old = keys;
    bits += 1;
    keys = new Int32Array(2 ** bits).fill(-1);
    for (const value of old) if (value !== -1) keys[find(value)] = value;
  };
  for (const { ids, card: own } of documents) for (const id of ids) for (const card of candidates[own]!) insert(id * cardCount + card);
  const capacity = keys.length;
  const weights = new Float64Array(capacity);
  // Every (n-gram, card) pair a text takes part in: its slot, found once.
  const slots = documents.map(({ ids, card: own }) => {
    const cards = candidates[own]!;
    const out = new Int32Array(ids.length * cards.length);
    for (let index = 0; index < ids.length; index += 1) for (let k = 0; k < cards.length; k += 1) out[index * cards.length + k] = find(ids[index]! * cardCount + cards[k]!);
    return out;
  });
  const scores = new Float64Array(cardCount);
  const random = createRandom(options.seed ?? 7);
  const order = documents.map((_, index) => index);
  for (let epoch = 0; epoch < epochs && cardCount > 1; epoch += 1) {
    shuffleInPlace(order, random);
    const rate = learningRate / (1 + epoch);
    for (const at of order) {
      const { values } = documents[at]!;
      const cards = candidates[documents[at]!.card]!;
      const width = cards.length;
      const own = slots[at]!;
      scores.fill(0, 0, width);
      for (let index = 0; index < values.length; index += 1) for (let k = 0; k < width; k += 1) scores[k]! += values[index]! * weights[own[index * width + k]!]!;
      // The cards outside the text's rivals hold no weight for its n-grams: they score 0 and share the rest of the sum.
      const rest = cardCount - width;
      let best = rest > 0 ? 0 : -Infinity;
      for (let k = 0; k < width; k += 1) best = Math.max(best, scores[k]!);
      let sum = rest * Math.exp(-best);
      for (let k = 0; k < width; k += 1) sum += scores[k] = Math.exp(scores[k]! - best);
      // The gradient of each card: its probability, less 1 for the text's own card (the first).
      for (let k = 0; k < width; k += 1) scores[k] = scores[k]! / sum - (k === 0 ? 1 : 0);
      for (let index = 0; index < values.length; index += 1) {
        const step = rate * values[index]!;
        for (let k = 0; k < width; k += 1) weights[own[index * width + k]!]! -= step * scores[k]!;
      }
    }
  }
  const offsets = new Int32Array(featureCount + 1);
  for (let slot = 0; slot < capacity; slot += 1) if (keys[slot] !== -1 && weights[slot] !== 0) offsets[Math.floor(keys[slot]! / cardCount) + 1]! += 1;
  for (let id = 0; id < featureCount; id += 1) offsets[id + 1]! += offsets[id]!;
  const fill = offsets.slice(0, featureCount);
  const cards = new Int32Array(offsets[featureCount]!);
  const values = new Float32Array(cards.length);
  for (let slot = 0; slot < capacity; slot += 1) {
    if (keys[slot] === -1 || weights[slot] === 0) continue;
    const id = Math.floor(keys[slot]! / cardCount);
    cards[fill[id]!] = keys[slot]! % cardCount;
    values[fill[id]!] = weights[slot]!;
    fill[id]! += 1;
  }
  return { offsets, cards, values };
}

