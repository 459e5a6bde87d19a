/**
 * How the discriminative n-gram model (`gram-classifier.ts`) joins the example
 * model's evidence in the ranker. It never decides alone; it speaks where the
 * example model is unsure and agrees with it where it routes:
 *
 * - **Which card.** When a keyword-free request passed the out-of-scope gate
 *   on the example model's most likely card, and the discriminative model is
 *   confident (`confidence`, calibrated on held-out examples at load) that it
 *   is the example model's second card instead — one that shares at least as
 *   many content words with the request — the request goes to that card
 *   ("set me up with a flight to phoenix": a booking, though the status card
 *   has more examples saying "flight").
 * - **A request nothing else routes.** Both models name the same card, the
 *   discriminative one confidently, the request shares a content word with
 *   the card's texts and is familiar enough; and it uses no character of the
 *   card's keywords that the card's examples only ever use inside the keyword
 *   ("附近有什么好吃的火锅店" shares 店 with 酒店: another kind of place).
 */
import type { ExampleScores } from './example-index.js';
import { argmax } from './match-rules.js';

/** What the rules read besides the two models' scores. */
export interface GramEvidenceOptions {
  /** Probability the discriminative model must give its card (`SnapshotModel.gramConfidence`). */
  confidence: number;
  /** Share of the text's feature mass the example model must know (the ranker's `minFamiliar`). */
  minFamiliar: number;
}

/**
 * The card of a request whose route the example model's most likely card earned: that card, or its second
 * when the discriminative model is confident of the second and the words support it as well.
 */
export function chosenCard(scores: ExampleScores, grams: Float64Array, options: Pick<GramEvidenceOptions, 'confidence'>): number {
  const likely = argmax(scores.posterior);
  const meant = argmax(grams);
  if (meant === likely || grams[meant]! < options.confidence || scores.strong[meant]! < scores.strong[likely]!) return likely;
  const above = scores.posterior.filter((posterior) => posterior > scores.posterior[meant]!).length;
  return above <= 1 ? meant : likely;
}

/** The card both models name for a request nothing else routes, or undefined. `strays`: see the module comment. */
export function agreedCard(scores: ExampleScores, grams: Float64Array, options: GramEvidenceOptions, strays: (cardIndex: number) => boolean): number | undefined {
  const meant = argmax(grams);
  if (grams[meant]! < options.confidence || argmax(scores.posterior) !== meant) return undefined;
  if (scores.familiar < options.minFamiliar || scores.strong[meant]! < 1 || strays(meant)) return undefined;
  return meant;
}
