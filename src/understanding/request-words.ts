/**
 * Where the message names an agent's request: one of the card's keywords or
 * its name, English ones as whole words (a plural ending allowed). The reading
 * finds these once per clause for every card of the registry
 * (`ReadClause.requestWords`); the intent node (is an expired request named
 * anew?) and the planners (which clause asked for an agent, where two requests
 * share a clause) read them there instead of matching the words again.
 */
import type { AgentCard } from '../registry/index.js';
import type { Clause } from './clause-splitter.js';

/** What a request word is read of a card. */
export type RequestWordCard = Pick<AgentCard, 'id' | 'keywords' | 'name' | 'names'>;

/** Where a clause first names the request of one agent (offsets into the clause's text). */
export interface RequestWord {
  readonly agentId: string;
  readonly start: number;
  readonly end: number;
}

/** A clause of a reading with the request words it holds, one per agent it names. */
export interface ReadClause extends Clause {
  readonly requestWords: readonly RequestWord[];
}

/**
 * Where `text` first names the request of `card`: one of its keywords or its
 * name (English ones as whole words, a plural ending allowed), or undefined.
 * For texts the reading does not hold (an agent's words within a rewrite);
 * the message's clauses carry theirs (`ReadClause.requestWords`).
 */
export function requestWordIn(text: string, card: Pick<AgentCard, 'keywords' | 'name' | 'names'>): { start: number; end: number } | undefined {
  const lower = text.normalize('NFKC').toLowerCase();
  let found: { start: number; end: number } | undefined;
  for (const phrase of [...card.keywords, card.name, ...Object.values(card.names ?? {})]) {
    const word = phrase.normalize('NFKC').toLowerCase().trim();
    if (word.length === 0) continue;
    for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
      const end = at + word.length;
      const ascii = /^[a-z0-9]/.test(word);
      // English words may take a plural ending ("flights").
      if (ascii && ((at > 0 && /[a-z0-9_]/.test(lower[at - 1]!)) || !/^(?:e?s)?(?![a-z0-9_])/.test(lower.slice(end)))) continue;
      if (!found || at < found.start) found = { start: at, end };
      break;
    }
  }
  return found;
}

/** The clause with the request word of each card it names, frozen. */
export function readClause(clause: Clause, cards: Iterable<RequestWordCard>): ReadClause {
  const requestWords: RequestWord[] = [];
  for (const card of cards) {
    const word = requestWordIn(clause.text, card);
    if (word) requestWords.push(Object.freeze({ agentId: card.id, ...word }));
  }
  return Object.freeze({ text: clause.text, start: clause.start, requestWords: Object.freeze(requestWords) });
}

/** Where `clause` names the request of `agentId`, or undefined. */
export function requestWordOf(clause: ReadClause, agentId: string): RequestWord | undefined {
  return clause.requestWords.find((word) => word.agentId === agentId);
}

/** The distinct cards of a registry's agents (by id), for the reading. */
export function cardsOf(registry: { readonly byId: ReadonlyMap<string, RequestWordCard> } | undefined): RequestWordCard[] {
  return registry ? [...new Map([...registry.byId.values()].map((card) => [card.id, card])).values()] : [];
}
