/**
 * The texts a plan is made from, each read once: the (rewritten) query and the
 * user's words of this turn. The user's words are the turn's reading, never
 * read again; so is the query when the recogniser kept those words
 * (`PlanRequest.queryIsTyped`, said by the recogniser, not found by comparing
 * texts). A rewrite that carries earlier turns' words, or the model's, is a
 * new text, read here once.
 */
import { readText, textOfReading, type ReadText } from '../understanding/index.js';
import type { AgentCard } from '../registry/index.js';
import type { PlanRequest } from './types.js';

/** The plan's texts, read. */
export interface PlanTexts {
  /** The (rewritten) query the plan is made from. */
  query: ReadText;
  /** What the user typed this turn, when the request says it apart from the query. */
  turn?: ReadText;
}

/** Reads the texts of `request` for `cards` (see the file header). */
export function readPlanTexts(request: Pick<PlanRequest, 'query' | 'turnQuery' | 'reading' | 'queryIsTyped'>, cards: readonly AgentCard[]): PlanTexts {
  const { reading } = request;
  const query = reading && request.queryIsTyped ? textOfReading(reading, request.query) : readText(request.query, cards);
  if (request.turnQuery === undefined) return { query };
  return { query, turn: reading ? textOfReading(reading, request.turnQuery) : readText(request.turnQuery, cards) };
}
