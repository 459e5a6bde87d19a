/**
 * Storage of the example model: compressed inverted lists (feature → the
 * documents or cards holding it, with their weights), and how close a card's
 * examples are to one another.
 */

/** Compressed inverted lists: for feature f, entries offsets[f]..offsets[f+1] of ids/weights. */
export interface Postings {
  offsets: Int32Array;
  ids: Int32Array;
  weights: Float32Array;
}

export function buildPostings(featureCount: number, vectors: readonly { ids: Int32Array; weights: Float32Array }[]): Postings {
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

/** Examples sampled for `selfSimilarity`, spread evenly over the registry. */
const SELF_SIMILARITY_SAMPLE = 400;

/** The lower quartile of each sampled example's cosine to the nearest other example of its card. */
export function lowerQuartileOfSelfSimilarity(
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
