/**
 * The second peer `switchboard eval` measures the recogniser against: a
 * linear classifier over character n-grams, trained when the eval starts on
 * the same registry examples (the enabled cards' `examples`, nothing else).
 * It is the textbook text classifier: each text becomes an L2-normalised
 * bag of Chinese character 1- to 3-grams, Latin words and padded 3- to
 * 5-grams of each word; a multinomial logistic regression (softmax) is fitted
 * by stochastic gradient descent with L2 regularisation, examples shuffled by
 * a seeded generator so a run is reproducible. It never abstains when the
 * query has any known feature, reads no keywords, descriptions or earlier
 * turns. No library in the project's dependencies provides one, so it is
 * written here, kept small: it exists to be beaten.
 */
import type { RegistrySnapshot } from '../registry/index.js';
import type { NearestBaseline } from './nearest-baseline.js';
import { createRandom, shuffleInPlace } from '../util/index.js';

/** Training settings; the defaults are the usual ones for a small text classifier. */
export interface LinearBaselineOptions {
  /** Passes over the examples. Default 30. */
  epochs?: number;
  /** Starting learning rate (decays as 1 / (1 + epoch)). Default 0.5. */
  learningRate?: number;
  /** L2 penalty per step. Default 1e-4. */
  l2?: number;
  /** Seed of the example order. Default 7. */
  seed?: number;
}

const TOKEN = /\p{Script=Han}+|[\p{L}\p{N}]+/gu;
const HAN = /^\p{Script=Han}/u;

/** The character n-gram features of a text, L2-normalised. Exported for tests. */
export function ngramFeatures(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
  for (const [token] of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    if (HAN.test(token)) {
      for (let size = 1; size <= 3; size += 1) for (let index = 0; index + size <= token.length; index += 1) add(`h${token.slice(index, index + size)}`);
      continue;
    }
    add(`w${token}`);
    const padded = `<${token}>`;
    for (let size = 3; size <= 5; size += 1) for (let index = 0; index + size <= padded.length; index += 1) add(`c${padded.slice(index, index + size)}`);
  }
  let norm = 0;
  for (const count of counts.values()) norm += count * count;
  norm = Math.sqrt(norm) || 1;
  for (const [feature, count] of counts) counts.set(feature, count / norm);
  return counts;
}

/** Trains the classifier on the enabled cards' examples; the result answers like the nearest-example baseline. */
export function buildLinearBaseline(snapshot: RegistrySnapshot, options: LinearBaselineOptions = {}): NearestBaseline {
  const epochs = options.epochs ?? 30;
  const learningRate = options.learningRate ?? 0.5;
  const l2 = options.l2 ?? 1e-4;
  const cards = snapshot.enabledAgents.filter((card) => card.examples.length > 0);
  const classes = cards.length;
  const featureIds = new Map<string, number>();
  const examples = cards.flatMap((card, label) =>
    card.examples.map((text) => {
      const features = ngramFeatures(text);
      const ids = new Int32Array(features.size);
      const values = new Float64Array(features.size);
      let index = 0;
      for (const [feature, value] of features) {
        let id = featureIds.get(feature);
        if (id === undefined) featureIds.set(feature, (id = featureIds.size));
        ids[index] = id;
        values[index] = value;
        index += 1;
      }
      return { ids, values, label };
    }),
  );
  // weights[feature * classes + class]; a bias per class.
  const weights = new Float64Array(featureIds.size * classes);
  const bias = new Float64Array(classes);
  const scores = new Float64Array(classes);
  const softmax = (ids: Int32Array, values: Float64Array) => {
    scores.set(bias);
    for (let index = 0; index < ids.length; index += 1) {
      const row = ids[index]! * classes;
      const value = values[index]!;
      for (let label = 0; label < classes; label += 1) scores[label]! += value * weights[row + label]!;
    }
    let best = -Infinity;
    for (let label = 0; label < classes; label += 1) best = Math.max(best, scores[label]!);
    let sum = 0;
    for (let label = 0; label < classes; label += 1) sum += scores[label] = Math.exp(scores[label]! - best);
    for (let label = 0; label < classes; label += 1) scores[label]! /= sum;
    return scores;
  };
  const random = createRandom(options.seed ?? 7);
  const order = examples.map((_, index) => index);
  for (let epoch = 0; epoch < epochs && classes > 1; epoch += 1) {
    shuffleInPlace(order, random);
    const rate = learningRate / (1 + epoch);
    const shrink = 1 - rate * l2;
    for (const at of order) {
      const { ids, values, label } = examples[at]!;
      const probabilities = softmax(ids, values);
      for (let index = 0; index < ids.length; index += 1) {
        const row = ids[index]! * classes;
        const value = values[index]!;
        for (let target = 0; target < classes; target += 1) {
          const gradient = probabilities[target]! - (target === label ? 1 : 0);
          weights[row + target] = weights[row + target]! * shrink - rate * gradient * value;
        }
      }
      for (let target = 0; target < classes; target += 1) bias[target]! -= rate * (probabilities[target]! - (target === label ? 1 : 0));
    }
  }
  return (query) => {
    if (classes === 0) return undefined;
    const ids: number[] = [];
    const values: number[] = [];
    for (const [feature, value] of ngramFeatures(query)) {
      const id = featureIds.get(feature);
      if (id === undefined) continue;
      ids.push(id);
      values.push(value);
    }
    if (ids.length === 0) return undefined;
    const probabilities = softmax(Int32Array.from(ids), Float64Array.from(values));
    let best = 0;
    for (let label = 1; label < classes; label += 1) if (probabilities[label]! > probabilities[best]!) best = label;
    return cards[best]!.id;
  };
}
