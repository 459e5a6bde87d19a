/**
 * A similarity model trained from what a registry already holds: every card's
 * examples, name, description and keywords become character n-gram TF-IDF
 * vectors (no segmenter, no weights to download). A query is scored against
 * each card twice — its nearest example (cosine) and the card's centroid —
 * and the two are blended, so one close paraphrase counts and so does a query
 * that shares words with many of the card's examples.
 *
 * Features: Chinese runs give character 1-, 2- and 3-grams; Latin words give
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
import { isFunctionTerm } from '../../text/text-terms.js';
import { expandEvidence, type CardMass, type FeatureExpansionOptions } from './feature-expansion.js';

/** A text span to ignore (e.g. a slot value), in UTF-16 offsets. */
export interface TextMask {
  start: number;
  end: number;
}

/** What one card contributes to the model. */
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
  /** Scores `text` (masked spans ignored) against every card. */
  score(text: string, masks?: readonly TextMask[]): ExampleScores;
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

const TOKEN = /\p{Script=Han}+|[a-z][a-z']*|0+/gu;
const HAN_START = /^\p{Script=Han}/u;
const UNIGRAM_WEIGHT = 0.5;
const GRAM_WEIGHT = 0.25;

/** The weighted features of a text (before IDF). Exported for tests. */
export function featuresOf(text: string, masks: readonly TextMask[] = []): Map<string, number> {
  let prepared = text.normalize('NFKC');
  if (masks.length > 0) {
    let masked = '';
    let last = 0;
    for (const mask of [...masks].sort((a, b) => a.start - b.start)) {
      if (mask.start < last) continue;
      masked += `${prepared.slice(last, mask.start)} `;
      last = Math.max(last, mask.end);
    }
    prepared = masked + prepared.slice(last);
  }
  prepared = prepared.toLowerCase().replace(/\d+/gu, '0');
  const features = new Map<string, number>();
  const add = (feature: string, weight: number) => features.set(feature, (features.get(feature) ?? 0) + weight);
  let previousWord: string | undefined;
  for (const match of prepared.matchAll(TOKEN)) {
    const token = match[0];
    if (HAN_START.test(token)) {
      previousWord = undefined;
      // Particles (的 了 我 有 ...) and function bigrams (今天 什么 怎么 ...) end a piece: no n-gram
      // spans them, so "有什么好玩" shares nothing with "有什么好的酒店".
      for (const piece of contentPieces(token)) {
        for (let index = 0; index < piece.length; index += 1) {
          add(piece[index]!, UNIGRAM_WEIGHT);
          if (index + 1 < piece.length) add(piece.slice(index, index + 2), 1);
          if (index + 2 < piece.length) add(piece.slice(index, index + 3), 1);
        }
      }
      continue;
    }
    if (token.startsWith('0')) {
      previousWord = undefined;
      continue;
    }
    const word = token.replace(/'s$|'/gu, '');
    if (word.length === 0 || isFunctionTerm(word)) continue;
    add(`w ${word}`, 1);
    if (previousWord !== undefined) add(`b ${previousWord} ${word}`, 1);
    previousWord = word;
    const padded = `<${word}>`;
    for (let size = 3; size <= 4; size += 1) for (let index = 0; index + size <= padded.length; index += 1) add(padded.slice(index, index + size), GRAM_WEIGHT);
  }
  return features;
}

/** The runs of a Chinese token left after removing particles and function bigrams. */
function contentPieces(token: string): string[] {
  const pieces: string[] = [];
  for (const part of token.split(/[的了吗呢吧啊呀嘛哦和与及我你您他她它们请帮把给是在有个这那]+/u)) {
    const covered = new Uint8Array(part.length);
    for (let index = 0; index + 1 < part.length; index += 1) {
      if (isFunctionTerm(part.slice(index, index + 2))) covered[index] = covered[index + 1] = 1;
    }
    let current = '';
    for (let index = 0; index < part.length; index += 1) {
      if (covered[index] === 1) {
        if (current.length > 0) pieces.push(current);
        current = '';
      } else current += part[index];
    }
    if (current.length > 0) pieces.push(current);
  }
  return pieces;
}

/** Words, word pairs and Chinese terms of two or more characters; not single characters or word pieces. */
function isStrongFeature(feature: string): boolean {
  return feature.startsWith('w ') || feature.startsWith('b ') || (feature.length >= 2 && HAN_START.test(feature) && !feature.includes('<'));
}

/** Sublinear term frequency; fractional weights (unigrams, n-grams) stay as they are. */
function termWeight(count: number): number {
  return count > 1 ? 1 + Math.log(count) : count;
}

/** Compressed inverted lists: for feature f, entries offsets[f]..offsets[f+1] of ids/weights. */
interface Postings {
  offsets: Int32Array;
  ids: Int32Array;
  weights: Float32Array;
}

function buildPostings(featureCount: number, vectors: readonly { ids: Int32Array; weights: Float32Array }[]): Postings {
  const offsets = new Int32Array(featureCount + 1);
  for (const vector of vectors) for (const feature of vector.ids) offsets[feature + 1]! += 1;
  for (let feature = 0; feature < featureCount; feature += 1) offsets[feature + 1]! += offsets[feature]!;
  const fill = offsets.slice(0, featureCount);
  const ids = new Int32Array(offsets[featureCount]!);
  const weights = new Float32Array(offsets[featureCount]!);
  vectors.forEach((vector, owner) => {
    for (let index = 0; index < vector.ids.length; index += 1) {
      const feature = vector.ids[index]!;
      const at = fill[feature]!;
      fill[feature] = at + 1;
      ids[at] = owner;
      weights[at] = vector.weights[index]!;
    }
  });
  return { offsets, ids, weights };
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
  cards.forEach((card, cardIndex) => {
    const addDocument = (text: string, weight: number) => {
      const features = featuresOf(text, masksOf(text));
      if (features.size === 0) return;
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
    };
    for (const text of card.examples) addDocument(text, 1);
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
    score(text, masks = []) {
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
          centroid[card]! += weight * centroidPostings.weights[at]!;
          covered[card]! += weights[index]!;
          if (isStrong) strong[card]! += 1;
        }
      }
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
}

/** Examples sampled for `selfSimilarity`, spread evenly over the registry. */
const SELF_SIMILARITY_SAMPLE = 400;

/** The lower quartile of each sampled example's cosine to the nearest other example of its card. */
function lowerQuartileOfSelfSimilarity(
  documents: readonly { ids: Int32Array; weights: Float32Array }[],
  documentCard: readonly number[],
  documentWeight: readonly number[],
  featureCount: number,
): number {
  const examples = documents.map((_, index) => index).filter((index) => documentWeight[index] === 1);
  const step = Math.max(1, Math.floor(examples.length / SELF_SIMILARITY_SAMPLE));
  const dense = new Float64Array(featureCount);
  const found: number[] = [];
  for (let at = 0; at < examples.length; at += step) {
    const own = examples[at]!;
    const { ids, weights } = documents[own]!;
    for (let index = 0; index < ids.length; index += 1) dense[ids[index]!] = weights[index]!;
    let best = -1;
    // Documents of one card are contiguous: walk outwards from this one while the card stays the same.
    for (const direction of [-1, 1]) {
      for (let other = own + direction; other >= 0 && other < documents.length && documentCard[other] === documentCard[own]; other += direction) {
        if (documentWeight[other] !== 1) continue;
        let dot = 0;
        const document = documents[other]!;
        for (let index = 0; index < document.ids.length; index += 1) dot += dense[document.ids[index]!]! * document.weights[index]!;
        best = Math.max(best, dot);
      }
    }
    for (const id of ids) dense[id] = 0;
    if (best >= 0) found.push(best);
  }
  if (found.length === 0) return 0;
  found.sort((a, b) => a - b);
  return found[Math.floor(0.25 * (found.length - 1))]!;
}
