/**
 * The cards a request most likely means, for a clarification ("do you mean A
 * or B?", contract v4): the example model's naive-Bayes posterior, tempered
 * (it is far too sure of its first card on short texts), multiplied with the
 * discriminative n-gram model's probabilities (`gram-classifier.ts`, trained
 * on every registry for this even where it may not route). Each model alone
 * ranks the right card first less often than the two together (BANKING77, 10
 * examples per intent, the train rows not drawn as examples: 71 % and 71 %
 * alone, 76 % together; among the first three 88 %, 88 %, 91 %).
 *
 * Beside the shares, what tells a request from an unrelated one: how much of
 * the text the first card's texts hold (`covered`), and whether it shares a
 * real word with them at all (`shared`; "你好" shares only characters).
 */
import type { ExampleScores } from './example-index.js';

/** One card of the shortlist. */
export interface ShortlistEntry {
  cardIndex: number;
  /** Its share of the two models' averaged probability, 0..1. */
  share: number;
}

/** What a clarification reads. */
export interface Shortlist {
  /** Best first, at most `limit`. */
  entries: ShortlistEntry[];
  /** Share of the text's feature mass the first card's texts hold, 0..1. */
  covered: number;
  /** Cosine of the text to the first card's centroid, 0..1. */
  centroid: number;
  /** Share of the text's feature mass the model has seen at all, 0..1. */
  familiar: number;
  /** Words or multi-character Chinese terms the text shares with the first card's texts. */
  shared: number;
  /** How much both models back the first card: the mean of its share under each alone (the posterior tempered), 0..1. */
  backing: number;
}

/** Temperature the posterior's log is divided by for `backing` (chosen on the train split's held-out rows: 3, 10 and 30 tried). */
const POSTERIOR_TEMPERATURE = 10;

/**
 * Weight of the example model's log-posterior beside the n-gram model's log-probability (a tempered product of
 * the two, not an average): the posterior is far too sure of its first card on short texts, the n-gram model's
 * probabilities are calibrated on held-out examples. Chosen on BANKING77's train rows not drawn as examples
 * (`bench/public-routing.ts --split dev`): 0.05 to 1 tried; 0.1 ranks the right card among the first three
 * for 91 % (k = 10) and 94.3 % (k = 20) of requests, against 90 % and 93.5 % for the average of the two.
 */
const POSTERIOR_WEIGHT = 0.1;

/**
 * The product's log is divided by this before the shares are taken: a product of two models is surer than either,
 * and the clarification's thresholds read the shares as how sure the ranking is (1: the product as it is).
 */
const SHARE_TEMPERATURE = 2;

/** The shortlist of `limit` cards from the example model's scores and the n-gram model's probabilities (all zero: unused). */
export function shortlistOf(scores: ExampleScores, grams: Float64Array, limit: number): Shortlist {
  const count = scores.posterior.length;
  if (count === 0) return { entries: [], covered: 0, centroid: 0, familiar: scores.familiar, shared: 0, backing: 0 };
  const gramSum = grams.reduce((total, value) => total + value, 0);
  // Both models must back a card: the sum of their logs (a product of experts), then normalised to shares.
  const logs = Array.from(scores.posterior, (value, index) => POSTERIOR_WEIGHT * Math.log(Math.max(value, 1e-300)) + (gramSum > 0 ? Math.log(grams[index]! / gramSum + 1e-9) : 0));
  const top = Math.max(...logs);
  const weights = logs.map((value) => Math.exp((value - top) / SHARE_TEMPERATURE));
  const sum = weights.reduce((total, value) => total + value, 0);
  const mixed = weights.map((value) => value / sum);
  const order = mixed.map((_, index) => index).sort((a, b) => mixed[b]! - mixed[a]!);
  const entries = order.slice(0, Math.max(0, limit)).map((cardIndex) => ({ cardIndex, share: mixed[cardIndex]! }));
  const first = entries[0]?.cardIndex;
  if (first === undefined) return { entries, covered: 0, centroid: 0, familiar: scores.familiar, shared: 0, backing: 0 };
  return { entries, covered: scores.covered[first]!, centroid: scores.centroid[first]!, familiar: scores.familiar, shared: scores.strong[first]!, backing: backingOf(scores.posterior, grams, gramSum, first) };
}

/** The mean of the first card's share under the tempered posterior and under the n-gram model (the posterior alone when that is unused). */
function backingOf(posterior: Float64Array, grams: Float64Array, gramSum: number, cardIndex: number): number {
  const logs = Array.from(posterior, (value) => Math.log(Math.max(value, 1e-300)) / POSTERIOR_TEMPERATURE);
  const top = Math.max(...logs);
  let sum = 0;
  for (const value of logs) sum += Math.exp(value - top);
  const tempered = Math.exp(logs[cardIndex]! - top) / sum;
  return gramSum > 0 ? 0.5 * tempered + 0.5 * (grams[cardIndex]! / gramSum) : tempered;
}
