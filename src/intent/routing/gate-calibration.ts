/**
 * The out-of-scope gate of the example ranker, calibrated per registry when it
 * is loaded, on the registry's own examples. Each sampled example is taken out
 * of its card (leave-one-out) and scored against the rest of the model: how
 * much of its text the card's other texts hold (`covered`) and how near it is
 * to the card's other examples as a whole (`centroid`). Those are the figures a
 * request of that card, told in other words, can be expected to reach; the
 * gate asks a keyword-free query for what the lower part of the examples reach
 * (a quantile), kept within bounds, instead of one constant for every
 * registry. Examples that carry a keyword of their own card are left out: they
 * route by the keyword, not through the gate.
 *
 * Varied registries (a few hand-written examples per card) get a lower gate,
 * so their in-scope paraphrases are not answered "no agent"; templated ones
 * (examples close to each other) keep the upper bound, so an unrelated
 * question that shares a word or two stays out.
 */
import type { ExampleIndex } from './example-index.js';
import type { TextMask } from './example-features.js';

/** The thresholds the gate uses. */
export interface GateThresholds {
  /** Share of a query's feature mass a card's texts must hold. */
  minCovered: number;
  /** Cosine to the card's centroid. */
  minCentroid: number;
  /** How many left-out examples the figures were taken on (0: the defaults were kept). */
  sampled: number;
}

/** How to calibrate. */
export interface GateCalibrationOptions {
  /** The quantile of the left-out examples' figures the gate asks for. Default 0.25. */
  quantile?: number;
  /** Bounds of `minCovered`. Default 0.08..0.2. */
  covered?: readonly [number, number];
  /** Bounds of `minCentroid`. Default 0.005..0.02. */
  centroid?: readonly [number, number];
  /** Most examples scored (spread evenly over the registry). Default 150. */
  sample?: number;
  /** Fewer keyword-free examples than this: the upper bounds are kept. Default 8. */
  minExamples?: number;
}

/** One example of a card, as the ranker would read it. */
export interface CalibrationExample {
  cardIndex: number;
  exampleIndex: number;
  /** The example in normal form. */
  text: string;
}

/**
 * Calibrates the gate on `examples` (the caller leaves out those a keyword of their own card routes).
 * `masksOf` gives the value spans of a text, as for queries.
 */
export function calibrateGate(index: ExampleIndex, examples: readonly CalibrationExample[], masksOf: (text: string) => readonly TextMask[], options: GateCalibrationOptions = {}): GateThresholds {
  const quantile = options.quantile ?? 0.25;
  const [coveredLow, coveredHigh] = options.covered ?? [0.08, 0.2];
  const [centroidLow, centroidHigh] = options.centroid ?? [0.005, 0.02];
  const sample = options.sample ?? 150;
  const minExamples = options.minExamples ?? 8;
  const fallback: GateThresholds = { minCovered: coveredHigh, minCentroid: centroidHigh, sampled: 0 };
  if (examples.length < minExamples) return fallback;
  const step = Math.max(1, examples.length / sample);
  const covered: number[] = [];
  const centroid: number[] = [];
  for (let at = 0; at < examples.length; at += step) {
    const example = examples[Math.floor(at)]!;
    const document = index.exampleDocument(example.cardIndex, example.exampleIndex);
    if (document === undefined) continue;
    const scores = index.score(example.text, masksOf(example.text), document);
    covered.push(scores.covered[example.cardIndex]!);
    centroid.push(scores.centroid[example.cardIndex]!);
  }
  if (covered.length < minExamples) return fallback;
  return {
    minCovered: clamp(quantileOf(covered, quantile), coveredLow, coveredHigh),
    minCentroid: clamp(quantileOf(centroid, quantile), centroidLow, centroidHigh),
    sampled: covered.length,
  };
}

function quantileOf(values: number[], quantile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(quantile * (sorted.length - 1))]!;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
