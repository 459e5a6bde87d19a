/**
 * Card scorers over sentence vectors (`word-vectors.ts`) for the word-meaning
 * measurement (`bench/word-meaning.ts`). Each is built from the cards' texts
 * (examples and name) and scores a query's vector against every card:
 * - centroid: cosine to the mean of the card's text vectors;
 * - discriminant: linear discriminant analysis with one covariance shared by
 *   the cards, shrunk towards its mean variance (closed form, a 100 × 100
 *   solve: milliseconds);
 * - regression: softmax regression on the vectors with their first principal
 *   component removed (as smooth-inverse-frequency sentence vectors are
 *   usually used), full-batch gradient descent.
 */

/** One card text's vector and its card. */
export interface CardVector {
  vector: Float64Array;
  card: number;
}

/** Scores of every card for a query vector (higher: closer). */
export type CardScorer = (query: Float64Array) => Float64Array;

function dot(a: Float64Array, b: Float64Array, offset = 0): number {
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += a[index]! * b[offset + index]!;
  return sum;
}

function meansOf(texts: readonly CardVector[], cards: number, dimensions: number): Float64Array[] {
  const means = Array.from({ length: cards }, () => new Float64Array(dimensions));
  const counts = new Float64Array(cards);
  for (const { vector, card } of texts) {
    counts[card]! += 1;
    for (let index = 0; index < dimensions; index += 1) means[card]![index]! += vector[index]!;
  }
  means.forEach((mean, card) => mean.forEach((_, index) => (mean[index]! /= Math.max(1, counts[card]!))));
  return means;
}

/** Cosine to each card's centroid. */
export function centroidScorer(texts: readonly CardVector[], cards: number, dimensions: number): CardScorer {
  const centroids = meansOf(texts, cards, dimensions).map((mean) => {
    const norm = Math.sqrt(dot(mean, mean)) || 1;
    return mean.map((value) => value / norm);
  });
  return (query) => Float64Array.from(centroids, (centroid) => dot(query, centroid));
}

/** Solves A X = B for a symmetric positive definite A (n × n) and B (n × m), both row-major (Cholesky). */
export function solveSymmetric(a: Float64Array, n: number, b: Float64Array, m: number): Float64Array {
  const lower = new Float64Array(n * n);
  for (let row = 0; row < n; row += 1) {
    for (let column = 0; column <= row; column += 1) {
      let sum = a[row * n + column]!;
      for (let k = 0; k < column; k += 1) sum -= lower[row * n + k]! * lower[column * n + k]!;
      lower[row * n + column] = row === column ? Math.sqrt(Math.max(sum, 1e-12)) : sum / lower[column * n + column]!;
    }
  }
  const x = new Float64Array(n * m);
  const y = new Float64Array(n);
  for (let column = 0; column < m; column += 1) {
    for (let row = 0; row < n; row += 1) {
      let sum = b[row * m + column]!;
      for (let k = 0; k < row; k += 1) sum -= lower[row * n + k]! * y[k]!;
      y[row] = sum / lower[row * n + row]!;
    }
    for (let row = n - 1; row >= 0; row -= 1) {
      let sum = y[row]!;
      for (let k = row + 1; k < n; k += 1) sum -= lower[k * n + row]! * x[k * m + column]!;
      x[row * m + column] = sum / lower[row * n + row]!;
    }
  }
  return x;
}

/** Linear discriminant: shared covariance Σ shrunk by `shrinkage` towards its mean variance; score x·Σ⁻¹μ − ½ μ·Σ⁻¹μ. */
export function discriminantScorer(texts: readonly CardVector[], cards: number, dimensions: number, shrinkage = 0.3): CardScorer {
  const means = meansOf(texts, cards, dimensions);
  const covariance = new Float64Array(dimensions * dimensions);
  const residual = new Float64Array(dimensions);
  for (const { vector, card } of texts) {
    for (let index = 0; index < dimensions; index += 1) residual[index] = vector[index]! - means[card]![index]!;
    for (let row = 0; row < dimensions; row += 1) {
      for (let column = 0; column < dimensions; column += 1) covariance[row * dimensions + column]! += (residual[row]! * residual[column]!) / texts.length;
    }
  }
  let trace = 0;
  for (let index = 0; index < dimensions; index += 1) trace += covariance[index * dimensions + index]!;
  const shrunk = covariance.map((value, cell) => (1 - shrinkage) * value + (Math.floor(cell / dimensions) === cell % dimensions ? (shrinkage * trace) / dimensions : 0));
  const meanColumns = new Float64Array(dimensions * cards);
  means.forEach((mean, card) => mean.forEach((value, index) => (meanColumns[index * cards + card] = value)));
  const weights = solveSymmetric(shrunk, dimensions, meanColumns, cards);
  const bias = means.map((mean, card) => {
    let sum = 0;
    for (let index = 0; index < dimensions; index += 1) sum += mean[index]! * weights[index * cards + card]!;
    return -0.5 * sum;
  });
  return (query) => {
    const scores = Float64Array.from(bias);
    for (let index = 0; index < dimensions; index += 1) {
      const value = query[index]!;
      if (value === 0) continue;
      for (let card = 0; card < cards; card += 1) scores[card]! += value * weights[index * cards + card]!;
    }
    return scores;
  };
}

/** Softmax regression (log-probabilities) on the vectors less their first principal component. */
export function regressionScorer(texts: readonly CardVector[], cards: number, dimensions: number, options: { epochs?: number; rate?: number; l2?: number } = {}): CardScorer {
  const epochs = options.epochs ?? 300;
  const rate = options.rate ?? 5;
  const l2 = options.l2 ?? 1e-4;
  // First principal component (uncentred), by power iteration.
  let component = new Float64Array(dimensions).fill(1 / Math.sqrt(dimensions));
  for (let step = 0; step < 50; step += 1) {
    const next = new Float64Array(dimensions);
    for (const { vector } of texts) {
      const projection = dot(vector, component);
      for (let index = 0; index < dimensions; index += 1) next[index]! += projection * vector[index]!;
    }
    const norm = Math.sqrt(dot(next, next)) || 1;
    component = next.map((value) => value / norm);
  }
  const project = (vector: Float64Array): Float64Array => {
    const projection = dot(vector, component);
    const out = vector.map((value, index) => value - projection * component[index]!);
    const norm = Math.sqrt(dot(out, out)) || 1;
    return out.map((value) => value / norm);
  };
  const inputs = texts.map((text) => project(text.vector));
  const width = dimensions + 1;
  const weights = new Float64Array(cards * width);
  const gradient = new Float64Array(cards * width);
  const logits = new Float64Array(cards);
  const logitsOf = (input: Float64Array) => {
    for (let card = 0; card < cards; card += 1) logits[card] = weights[card * width + dimensions]! + dot(input, weights, card * width);
    let top = -Infinity;
    for (const value of logits) top = Math.max(top, value);
    let sum = 0;
    for (let card = 0; card < cards; card += 1) sum += Math.exp(logits[card]! - top);
    const log = top + Math.log(sum);
    for (let card = 0; card < cards; card += 1) logits[card]! -= log;
  };
  for (let epoch = 0; epoch < epochs; epoch += 1) {
    gradient.fill(0);
    inputs.forEach((input, sample) => {
      logitsOf(input);
      for (let card = 0; card < cards; card += 1) {
        const error = Math.exp(logits[card]!) - (texts[sample]!.card === card ? 1 : 0);
        if (Math.abs(error) < 1e-6) continue;
        const offset = card * width;
        for (let index = 0; index < dimensions; index += 1) gradient[offset + index]! += error * input[index]!;
        gradient[offset + dimensions]! += error;
      }
    });
    for (let cell = 0; cell < weights.length; cell += 1) weights[cell]! -= rate * (gradient[cell]! / inputs.length + l2 * weights[cell]!);
  }
  return (query) => {
    logitsOf(project(query));
    return Float64Array.from(logits);
  };
}
