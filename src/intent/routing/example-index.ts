/**
 * A similarity model trained from what a registry already holds: every card's
 * examples, name, description and keywords become character n-gram TF-IDF
 * vectors (no segmenter, no weights to download). A query is scored against
 * each card twice — its nearest example (cosine) and the card's centroid —
 * and the two are blended, so one close paraphrase counts and so does a query
 * that shares words with many of the card's examples.
 *
 * Features (`example-features.ts`): Chinese runs give character n-grams; Latin words give
 * the word, the next-word bigram and character 3- and 4-grams of the padded
 * word (so "booking" meets "book" and "reschedule" meets "rescheduled").
 * Function words (particles, stop words) give nothing. Known slot values
 * (enum values such as city names) and digits are masked before featurising:
 * "上海" must not make every card mentioning Shanghai similar.
 *
 * Training is one pass over the texts into compressed inverted lists; scoring
 * walks the lists of the query's features, so its cost grows with the query,
 * not with the number of cards.
 */
import { featuresOf, isStrongFeature, termWeight, type TextMask } from './example-features.js';
import { buildPostings, lowerQuartileOfSelfSimilarity } from './example-postings.js';
import { expandEvidence, type CardMass, type FeatureExpansionOptions } from './feature-expansion.js';

export { featuresOf, type TextMask } from './example-features.js';

/** What one card contributes to the model: texts in normal form (NFKC), as every text the model scores. */
export interface ExampleCardInput {
  examples: readonly string[];
  /** Name, description, keywords: texts that describe the card rather than show a request. */
  descriptions: readonly string[];
}

/** Scores of one query against every card, in card order. */
export interface ExampleScores {
  /** Blend of `nearest` and `centroid`, 0..1. */
  score: Float64Array;
  /** Cosine to the card's closest example (or description text), 0..1. */
  nearest: Float64Array;
  /** Cosine to the card's centroid, 0..1. */
  centroid: Float64Array;
  /** Posterior of each card under a multinomial naive Bayes over the same features (sums to 1). */
  posterior: Float64Array;
  /** How many words or multi-character Chinese terms of the query the card's texts share (single characters and word pieces do not count). */
  strong: Uint8Array;
  /** Share (0..1) of the query's feature mass the model has seen in training (0 = nothing familiar). */
  familiar: number;
  /** Per card: share (0..1) of the query's feature mass found in the card's texts. */
  covered: Float64Array;
}

/** A trained model over a fixed list of cards. */
export interface ExampleIndex {
  readonly cardCount: number;
  readonly documentCount: number;
  /**
   * How close a card's examples are to each other: the lower quartile, over a sample of examples, of
   * each one's cosine to the nearest other example of its card (0 when no card has two examples).
   * Templated registries score high, varied ones low; the ranker scales its threshold by it.
   */
  readonly selfSimilarity: number;
  /**
   * Scores `text` (in normal form, masked spans ignored) against every card. With `leaveOut` (a document from
   * `exampleDocument`), that example is taken out of its card first: its nearest example, centroid,
   * coverage and shared words are those of the card without it (leave-one-out, for calibration).
   */
  score(text: string, masks?: readonly TextMask[], leaveOut?: number): ExampleScores;
  /** The document of a card's example (by its position in `examples`), or undefined when it gave no feature. */
  exampleDocument(cardIndex: number, exampleIndex: number): number | undefined;
}

/** Tuning of the model. */
export interface ExampleIndexOptions {
  /** Weight of the nearest-example cosine in the blend (the rest is the centroid). Default 0.6. */
  nearestWeight?: number;
  /** Weight of description texts relative to examples in a card's centroid. Default 0.5. */
  descriptionWeight?: number;
  /** Additive smoothing of the naive Bayes feature masses. Default 0.01. */
  smoothing?: number;
  /** Multiplies the naive Bayes log-likelihoods before the softmax (higher = more decided posteriors). Default 1. */
  sharpness?: number;
  /** Evidence for words a card lacks through the words that stand for them (see `feature-expansion.ts`); `false` turns it off. */
  expansion?: FeatureExpansionOptions | false;
  /** Spans of a training text to ignore (e.g. slot values), as for queries. */
  masksOf?: (text: string) => readonly TextMask[];
}

/** Trains a model over `cards` (their order is the order of the scores). */
export function buildExampleIndex(cards: readonly ExampleCardInput[], options: ExampleIndexOptions = {}): ExampleIndex {
  const nearestWeight = options.nearestWeight ?? 0.6;
  const descriptionWeight = options.descriptionWeight ?? 0.5;
  const masksOf = options.masksOf ?? (() => []);
  const smoothing = options.smoothing ?? 0.001;
  const sharpness = options.sharpness ?? 1;

  const featureIds = new Map<string, number>();
  const documentCard: number[] = [];
  const documentWeight: number[] = [];
  const raw: { ids: Int32Array; counts: Float32Array }[] = [];
  const exampleDocuments: (number | undefined)[][] = [];
  cards.forEach((card, cardIndex) => {
    const addDocument = (text: string, weight: number): number | undefined => {
      const features = featuresOf(text, masksOf(text));
      if (features.size === 0) return undefined;
      const ids = new Int32Array(features.size);
      const counts = new Float32Array(features.size);
      let index = 0;
      for (const [feature, count] of features) {
        let id = featureIds.get(feature);
        if (id === undefined) featureIds.set(feature, (id = featureIds.size));
        ids[index] = id;
        counts[index] = count;
        index += 1;
      }
      raw.push({ ids, counts });
      documentCard.push(cardIndex);
      documentWeight.push(weight);
      return raw.length - 1;
    };
    exampleDocuments.push(card.examples.map((text) => addDocument(text, 1)));
    for (const text of card.descriptions) addDocument(text, descriptionWeight);
  });

  const featureCount = featureIds.size;
  const strongFeature = new Uint8Array(featureCount);
  for (const [feature, id] of featureIds) if (isStrongFeature(feature)) strongFeature[id] = 1;
  const total = raw.length;
  // Inverse *card* frequency: a phrase every card's examples share (a greeting, a sentence frame)
  // says nothing about which card is meant, however many examples repeat it.
  const cardFrequency = new Int32Array(featureCount);
  const lastCard = new Int32Array(featureCount).fill(-1);
  raw.forEach((document, documentIndex) => {
    const card = documentCard[documentIndex]!;
    for (const id of document.ids) {
      if (lastCard[id] === card) continue;
      lastCard[id] = card;
      cardFrequency[id]! += 1;
    }
  });
  const cardCount = Math.max(cards.length, 1);
  const unseenIdf = Math.log((cardCount + 1) / 1.5);
  const idf = new Float64Array(featureCount);
  for (let id = 0; id < featureCount; id += 1) idf[id] = Math.log((cardCount + 1) / (cardFrequency[id]! + 0.5));

  const documents = raw.map(({ ids, counts }) => {
    const weights = new Float32Array(ids.length);
    let norm = 0;
    for (let index = 0; index < ids.length; index += 1) {
      const weight = termWeight(counts[index]!) * idf[ids[index]!]!;
      weights[index] = weight;
      norm += weight * weight;
    }
    norm = Math.sqrt(norm) || 1;
    for (let index = 0; index < weights.length; index += 1) weights[index]! /= norm;
    return { ids, weights };
  });

  // Centroids: documents are grouped by card, so one dense scratch row is enough.
  const scratch = new Float64Array(featureCount);
  const centroids: { ids: Int32Array; weights: Float32Array }[] = [];
  // Naive Bayes: log(1 + mass of feature f in card c / smoothing), and log(total mass of c + smoothing × features).
  const likelihoods: { ids: Int32Array; weights: Float32Array }[] = [];
  const cardMasses: CardMass[] = [];
  const logMass = new Float64Array(cards.length);
  /** Length of each card's centroid before normalising (for leave-one-out). */
  const centroidNorm = new Float64Array(cards.length);
  let documentIndex = 0;
  for (let cardIndex = 0; cardIndex < cards.length; cardIndex += 1) {
    const touched: number[] = [];
    for (; documentIndex < total && documentCard[documentIndex] === cardIndex; documentIndex += 1) {
      const { ids, weights } = documents[documentIndex]!;
      for (let index = 0; index < ids.length; index += 1) {
        const id = ids[index]!;
        if (scratch[id] === 0) touched.push(id);
        scratch[id]! += weights[index]! * documentWeight[documentIndex]!;
      }
    }
    let norm = 0;
    let mass = 0;
    for (const id of touched) {
      norm += scratch[id]! * scratch[id]!;
      mass += scratch[id]!;
    }
    norm = Math.sqrt(norm) || 1;
    centroidNorm[cardIndex] = norm;
    const ids = Int32Array.from(touched);
    const weights = new Float32Array(touched.length);
    const evidence = new Float32Array(touched.length);
    const masses = new Float32Array(touched.length);
    touched.forEach((id, index) => {
      weights[index] = scratch[id]! / norm;
      masses[index] = scratch[id]!;
      evidence[index] = Math.log(1 + scratch[id]! / smoothing);
      scratch[id] = 0;
    });
    centroids.push({ ids, weights });
    likelihoods.push({ ids, weights: evidence });
    cardMasses.push({ ids, masses });
    logMass[cardIndex] = Math.log(mass + smoothing * featureCount);
  }
  const documentPostings = buildPostings(featureCount, documents);
  const centroidPostings = buildPostings(featureCount, centroids);
  if (options.expansion !== false) {
    const extra = expandEvidence(featureCount, cardMasses, smoothing, strongFeature, options.expansion);
    extra.forEach((added, cardIndex) => {
      if (added.ids.length === 0) return;
      const own = likelihoods[cardIndex]!;
      const ids = new Int32Array(own.ids.length + added.ids.length);
      const weights = new Float32Array(ids.length);
      ids.set(own.ids);
      ids.set(added.ids, own.ids.length);
      weights.set(own.weights);
      weights.set(added.masses, own.weights.length);
      likelihoods[cardIndex] = { ids, weights };
    });
  }
  const likelihoodPostings = buildPostings(featureCount, likelihoods);
  const cardOfDocument = Int32Array.from(documentCard);
  const selfSimilarity = lowerQuartileOfSelfSimilarity(documents, documentCard, documentWeight, featureCount);

  return {
    cardCount: cards.length,
    documentCount: total,
    selfSimilarity,
    exampleDocument: (cardIndex, exampleIndex) => exampleDocuments[cardIndex]?.[exampleIndex],
    score(text, masks = [], leaveOut) {
      const out = leaveOut === undefined ? undefined : leftOut(leaveOut);
      const query = featuresOf(text, masks);
      const nearest = new Float64Array(cards.length);
      const centroid = new Float64Array(cards.length);
      const score = new Float64Array(cards.length);
      const posterior = new Float64Array(cards.length).fill(cards.length > 0 ? 1 / cards.length : 0);
      const strong = new Uint8Array(cards.length);
      const covered = new Float64Array(cards.length);
      const ids: number[] = [];
      const weights: number[] = [];
      let norm = 0;
      let familiarMass = 0;
      let mass = 0;
      for (const [feature, count] of query) {
        const id = featureIds.get(feature);
        // An unseen feature still counts towards the query's length: unfamiliar text scores lower.
        const weight = termWeight(count) * (id === undefined ? unseenIdf : idf[id]!);
        norm += weight * weight;
        mass += weight;
        if (id === undefined) continue;
        familiarMass += weight;
        ids.push(id);
        weights.push(weight);
      }
      const familiar = mass > 0 ? familiarMass / mass : 0;
      if (ids.length === 0) return { score, nearest, centroid, posterior, strong, familiar, covered: new Float64Array(cards.length) };
      norm = Math.sqrt(norm);
      const dots = new Float64Array(total);
      let queryMass = 0;
      for (let index = 0; index < ids.length; index += 1) {
        const id = ids[index]!;
        queryMass += weights[index]!;
        for (let at = likelihoodPostings.offsets[id]!, end = likelihoodPostings.offsets[id + 1]!; at < end; at += 1) {
          posterior[likelihoodPostings.ids[at]!]! += weights[index]! * likelihoodPostings.weights[at]!;
        }
        const weight = weights[index]! / norm;
        for (let at = documentPostings.offsets[id]!, end = documentPostings.offsets[id + 1]!; at < end; at += 1) {
          dots[documentPostings.ids[at]!]! += weight * documentPostings.weights[at]!;
        }
        const isStrong = strongFeature[id] === 1;
        for (let at = centroidPostings.offsets[id]!, end = centroidPostings.offsets[id + 1]!; at < end; at += 1) {
          const card = centroidPostings.ids[at]!;
          if (out !== undefined && card === out.card) {
            // The card without the left-out example: its mass of this feature less the example's share.
            const rest = centroidPostings.weights[at]! * centroidNorm[card]! - out.weight * (out.features.get(id) ?? 0);
            if (rest <= 1e-7) continue;
            centroid[card]! += (weight * rest) / out.norm;
            covered[card]! += weights[index]!;
            if (isStrong) strong[card]! += 1;
            continue;
          }
          centroid[card]! += weight * centroidPostings.weights[at]!;
          covered[card]! += weights[index]!;
          if (isStrong) strong[card]! += 1;
        }
      }
      if (leaveOut !== undefined) dots[leaveOut] = 0;
      for (let index = 0; index < total; index += 1) {
        const card = cardOfDocument[index]!;
        if (dots[index]! > nearest[card]!) nearest[card] = dots[index]!;
      }
      for (let card = 0; card < cards.length; card += 1) score[card] = nearestWeight * nearest[card]! + (1 - nearestWeight) * centroid[card]!;
      // posterior held 1/n + evidence; turn it into log-likelihoods, then a softmax.
      let best = -Infinity;
      for (let card = 0; card < cards.length; card += 1) {
        posterior[card] = sharpness * (posterior[card]! - 1 / cards.length - queryMass * logMass[card]!);
        best = Math.max(best, posterior[card]!);
      }
      let sum = 0;
      for (let card = 0; card < cards.length; card += 1) sum += posterior[card] = Math.exp(posterior[card]! - best);
      for (let card = 0; card < cards.length; card += 1) posterior[card]! /= sum;
      for (let card = 0; card < cards.length; card += 1) covered[card]! /= mass;
      return { score, nearest, centroid, posterior, strong, familiar, covered };
    },
  };

  /** A document's features and weight in its card's centroid, and the centroid's length without it. */
  function leftOut(documentIndex: number): { card: number; weight: number; features: Map<number, number>; norm: number } {
    const card = cardOfDocument[documentIndex]!;
    const document = documents[documentIndex]!;
    const weight = documentWeight[documentIndex]!;
    const features = new Map<number, number>();
    for (let index = 0; index < document.ids.length; index += 1) features.set(document.ids[index]!, document.weights[index]!);
    // |S − w·d|² = |S|² − 2w·S·d + w²|d|², with |d| = 1 and S = centroid × its length.
    let along = 0;
    const own = centroids[card]!;
    for (let index = 0; index < own.ids.length; index += 1) along += own.weights[index]! * centroidNorm[card]! * (features.get(own.ids[index]!) ?? 0);
    const squared = centroidNorm[card]! ** 2 - 2 * weight * along + weight * weight;
    return { card, weight, features, norm: Math.sqrt(Math.max(squared, 1e-12)) };
  }
}
