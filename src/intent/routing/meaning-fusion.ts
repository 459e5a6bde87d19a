/**
 * How the optional embeddings endpoint's scores (`embeddings/semantic-index.ts`)
 * join the lexical ranking, with the thresholds calibrated on the registry's
 * own examples: a keyword-free request nothing lexical routes goes to the
 * card it means, when the query is as close to that card as its own examples
 * are to one another (`threshold`) and leads the next card by `margin`.
 * Keywords and values always win: meaning only fills in where words are weak.
 */
import type { AgentMatch } from './card-ranker.js';
import type { SemanticScores } from '../../embeddings/index.js';
import { round } from './match-rules.js';

/** The card meant, when meaning alone is clear enough; undefined otherwise. */
export function meantCard(semantic: SemanticScores): number | undefined {
  let best = -1;
  let second = -Infinity;
  semantic.similarity.forEach((value, cardIndex) => {
    if (best < 0 || value > semantic.similarity[best]!) {
      if (best >= 0) second = semantic.similarity[best]!;
      best = cardIndex;
    } else second = Math.max(second, value);
  });
  if (best < 0) return undefined;
  const top = semantic.similarity[best]!;
  return top >= semantic.threshold && top - (Number.isFinite(second) ? second : 0) >= semantic.margin ? best : undefined;
}

/** Applies the rule to `chosen` (card index → match), through `choose`. */
export function fuseMeaning(
  semantic: SemanticScores,
  chosen: Map<number, AgentMatch>,
  anyKeyword: boolean,
  choose: (cardIndex: number, match: Omit<AgentMatch, 'agentId'>) => void,
  text: string,
): void {
  const meant = meantCard(semantic);
  if (meant === undefined) return;
  const similarity = semantic.similarity[meant]!;
  const match = { score: round(0.7 * similarity), keywords: [], coverage: round(similarity), clause: text, position: 0 };
  // Only where words left the request with no agent: a route words made is kept (on the sample sets, replacing
  // a word-similarity route by a closer card in meaning lost more lines than it won; decision 0032).
  if (chosen.size === 0 && !anyKeyword) choose(meant, match);
}
