/**
 * The cards a request most likely means, for a clarification ("do you mean A
 * or B?", contract v4), from two models: the example model's naive-Bayes
 * posterior, tempered (it is far too sure of its first card on short texts),
 * and the discriminative n-gram model's probabilities (`gram-classifier.ts`,
 * trained on every registry for this even where it may not route).
 *
 * - **Which cards, in which order**: the product of the two (a tempered sum
 *   of their logs): a card both models support beats one only one of them
 *   likes. On BANKING77 (the train rows not drawn as examples, seeds 1 and 2)
 *   the product ranks the right card first for 76 % (k = 10) / 82 % (k = 20)
 *   of requests and among the first three for 91 % / 94 %; the average of the
 *   two, 74.5 % / 80 % and 90 % / 93.5 %; each model alone, 71 % / 77 % and
 *   88 % / 92 %.
 * - **How sure, and how near**: read on the card the two models back most on
 *   average (`backing`, the mean of its share under each), with how much of
 *   the text that card's texts hold (`covered`) and whether it shares a real
 *   word with them at all (`shared`; "你好" shares only characters). Reading
 *   them on the product's first card instead asks about fewer out-of-scope
 *   requests but keeps fewer of them out (decision 0048): the average, not
 *   the product, is what the clarification's thresholds were set on.
 */
import type { ExampleScores } from './example-index.js';

/** One card of the shortlist. */
export interface ShortlistEntry {
  cardIndex: number;
  /** Its share of the two models' product, 0..1. */
  share: number;
}

/** What a clarification reads. */
export interface Shortlist {
  /** Best first (by the product of the two models), at most `limit`. */
  entries: ShortlistEntry[];
  /** Share of the text's feature mass the most backed card's texts hold, 0..1. */
  covered: number;
  /** Cosine of the text to the most backed card's centroid, 0..1. */
  centroid: number;
  /** Share of the text's feature mass the model has seen at all, 0..1. */
  familiar: number;
  /** Words or multi-character Chinese terms the text shares with the most backed card's texts. */
  shared: number;
  /** How much the two models back their most backed card: the mean of its share under each (the posterior tempered), 0..1. */
  backing: number;
  /** Index of that card, the one `covered`, `centroid` and `shared` are read on; -1 when there are no cards. */
  backed: number;
}

/** Temperature the posterior's log is divided by (chosen on the train split's held-out rows: 3, 10 and 30 tried). */
const POSTERIOR_TEMPERATURE = 10;

/**
 * The product's log is divided by this before its shares are taken: a product of two models is surer than
 * either. The shares only order the cards and drop a third option nearly nobody would mean.
 */
const PRODUCT_TEMPERATURE = 2;

/** The shortlist of `limit` cards from the example model's scores and the n-gram model's probabilities (all zero: unused). */
export function shortlistOf(scores: ExampleScores, grams: Float64Array, limit: number): Shortlist {
  const count = scores.posterior.length;
  if (count === 0) return { entries: [], covered: 0, centroid: 0, familiar: scores.familiar, shared: 0, backing: 0, backed: -1 };
  const tempered = normalised(Array.from(scores.posterior, (value) => Math.log(Math.max(value, 1e-300)) / POSTERIOR_TEMPERATURE));
  const gramSum = grams.reduce((total, value) => total + value, 0);
  const gram = gramSum > 0 ? Array.from(grams, (value) => value / gramSum) : undefined;
  const mean = gram ? tempered.map((value, index) => 0.5 * value + 0.5 * gram[index]!) : tempered;
  const product = gram ? normalised(tempered.map((value, index) => (Math.log(value + 1e-300) + Math.log(gram[index]! + 1e-9)) / PRODUCT_TEMPERATURE)) : tempered;
  const order = product.map((_, index) => index).sort((a, b) => product[b]! - product[a]!);
  const entries = order.slice(0, Math.max(0, limit)).map((cardIndex) => ({ cardIndex, share: product[cardIndex]! }));
  const backed = mean.reduce((best, value, index) => (value > mean[best]! ? index : best), 0);
  return { entries, covered: scores.covered[backed]!, centroid: scores.centroid[backed]!, familiar: scores.familiar, shared: scores.strong[backed]!, backing: mean[backed]!, backed };
}

/** exp of each log, shifted by the largest, as shares summing to 1. */
function normalised(logs: number[]): number[] {
  const top = Math.max(...logs);
  const weights = logs.map((value) => Math.exp(value - top));
  const sum = weights.reduce((total, value) => total + value, 0);
  return weights.map((value) => value / sum);
}
