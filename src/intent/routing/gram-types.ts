/**
 * The shapes the n-gram classifier and its dense fit share (gram-classifier.ts,
 * gram-dense-fit.ts), kept apart so that neither imports the other for them.
 */

/** Training settings. */
export interface GramClassifierOptions {
  /** Passes over the texts. Default 4. */
  epochs?: number;
  /** Step size of the first pass (then rate / (1 + pass)). Default 1. */
  learningRate?: number;
  /** Rival cards each card's texts are told apart from (the closest in n-grams). Default 24, fewer on large registries. */
  rivals?: number;
  /** About how many (n-gram, card) updates a pass may cost; sets the rivals of large registries. Default 600 000. */
  budget?: number;
  /**
   * Registries whose n-grams × cards fit in this many weights are trained over every card at each step (a full
   * softmax, every n-gram kept): more exact than rivals only, and as cheap there. Default 2 000 000; 0 never.
   */
  denseWeights?: number;
  /** Seed of the order of the texts. Default 7. */
  seed?: number;
  /** Hold out every n-th example of a card to calibrate the temperature. Default 5; 0 keeps temperature 1. */
  holdOutEvery?: number;
  /**
   * Share of the held-out examples that must come out first for the model to be trained on everything and used
   * (`trusted`); with none held out, only 0 trusts it. Default 0.
   */
  minHeldOutRight?: number;
}

/** A text as its n-gram ids and values, and its card. */
export interface Encoded {
  ids: Int32Array;
  values: Float64Array;
  card: number;
}

/** Sparse weights: per feature, the cards it holds a weight for (compressed rows). */
export interface Weights {
  offsets: Int32Array;
  cards: Int32Array;
  values: Float32Array;
}
