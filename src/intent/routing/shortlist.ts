/**
 * The cards a request most likely means, for a clarification ("do you mean A
 * or B?", contract v4): the example model's naive-Bayes posterior, tempered
 * (it is far too sure of its first card on short texts), averaged with the
 * discriminative n-gram model's probabilities (`gram-classifier.ts`, trained
 * on every registry for this even where it may not route). Each model alone
 * ranks the right card first less often than the two together (BANKING77, 10
 * examples per intent, the train rows not drawn as examples: 71 % and 69 %
 * alone, 74.5 % together; among the first three 88 %, 86 %, 89 %).
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
}

/** Temperature the posterior's log is divided by (chosen on the train split's held-out rows: 3, 10 and 30 tried). */
const POSTERIOR_TEMPERATURE = 10;

/** The shortlist of `limit` cards from the example model's scores and the n-gram model's probabilities (all zero: unused). */
export function shortlistOf(scores: ExampleScores, grams: Float64Array, limit: number): Shortlist {
  const count = scores.posterior.length;
  if (count === 0) return { entries: [], covered: 0, centroid: 0, familiar: scores.familiar, shared: 0 };
  const logs = Array.from(scores.posterior, (value) => Math.log(Math.max(value, 1e-300)) / POSTERIOR_TEMPERATURE);
  const top = Math.max(...logs);
  const tempered = logs.map((value) => Math.exp(value - top));
  const sum = tempered.reduce((total, value) => total + value, 0);
  const gramSum = grams.reduce((total, value) => total + value, 0);
  const mixed = tempered.map((value, index) => (gramSum > 0 ? 0.5 * (value / sum) + 0.5 * (grams[index]! / gramSum) : value / sum));
  const order = mixed.map((_, index) => index).sort((a, b) => mixed[b]! - mixed[a]!);
  const entries = order.slice(0, Math.max(0, limit)).map((cardIndex) => ({ cardIndex, share: mixed[cardIndex]! }));
  const first = entries[0]?.cardIndex;
  return { entries, covered: first === undefined ? 0 : scores.covered[first]!, centroid: first === undefined ? 0 : scores.centroid[first]!, familiar: scores.familiar, shared: first === undefined ? 0 : scores.strong[first]! };
}
