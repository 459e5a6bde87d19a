/**
 * The small rules the example ranker applies around the model's scores:
 * places named by a keyword, requests joined by a coordinating word, how many
 * words in common a route on similarity alone needs, the units a query is
 * scored in, and how a ranking is summed up (confidence, reason).
 */
import type { AgentMatch } from './card-ranker.js';
import type { ExampleScores } from './example-index.js';
import type { Clause } from '../../understanding/index.js';

export interface Unit {
  text: string;
  start: number;
  end: number;
}

/** Text right before a keyword that makes it a destination or origin: 去/到/回/从/往 …, "to (my|the)", "from the". */
export const PLACE_BEFORE = /(?:去|到|回|从|往|至|送到|送我到|送我去)\s*$|\b(?:to|from|back to)\s+(?:my|the|our)?\s*$/iu;

/** Words that join two requests named by their nouns: "北京的酒店和天气", "hotel and weather in Beijing". */
export const COORDINATOR = /^\s*(?:和|与|及|跟|以及|还有|、|,|，|\/|&|and|plus)\s*$/i;

/** Two requests, each with its own words, joined in one clause: "北京明天的天气和明天从北京到上海的航班". */
export const JOINED_REQUEST = /和|跟|与|及|(?<![A-Za-z])(?:and|plus)(?![A-Za-z])|&/i;

/**
 * Cards whose keyword stands right beside another card's keyword with only a
 * coordinating word between them: the user named both requests, so neither is
 * dropped for being less likely than the other.
 */
export function coordinatedCards(text: string, keywordCards: ReadonlyMap<number, { spans: readonly { start: number; end: number }[] }>): Set<number> {
  const spans = [...keywordCards].flatMap(([cardIndex, entry]) => entry.spans.map((span) => ({ cardIndex, ...span }))).sort((a, b) => a.start - b.start);
  const joined = new Set<number>();
  for (let index = 1; index < spans.length; index += 1) {
    const left = spans[index - 1]!;
    const right = spans[index]!;
    if (left.cardIndex === right.cardIndex || right.start < left.end) continue;
    const between = text.slice(left.end, right.start);
    if (COORDINATOR.test(between) || JOINED_REQUEST.test(between)) {
      joined.add(left.cardIndex);
      joined.add(right.cardIndex);
    }
  }
  return joined;
}

/**
 * Similarity alone routes only on real words in common: two or more shared
 * words / Chinese terms, or one when the text is close overall, or none when
 * it is very close character by character (short Chinese paraphrases). A lone
 * shared "推荐" in a long unrelated sentence is not enough.
 */
export function enoughEvidence(scores: ExampleScores, cardIndex: number, singleTermSimilarity: number): boolean {
  const shared = scores.strong[cardIndex]!;
  const similarity = scores.nearest[cardIndex]!;
  return shared >= 2 || (shared === 1 && similarity >= singleTermSimilarity) || similarity >= 2 * singleTermSimilarity;
}

/**
 * The whole text first, then its clauses when there are several: the reading's clauses of the
 * normal form `text` begins (a long message is ranked on its first characters only: the clauses
 * within them, the last one cut where they end).
 */
export function unitsOf(text: string, clauses: readonly Clause[]): Unit[] {
  const units: Unit[] = [{ text, start: 0, end: text.length }];
  const within = clauses.flatMap((clause) => {
    const cut = clause.start < text.length ? clause.text.slice(0, text.length - clause.start).trimEnd() : '';
    return cut.length > 0 ? [{ text: cut, start: clause.start, end: clause.start + cut.length }] : [];
  });
  if (within.length > 1) units.push(...within);
  return units;
}

export function argmax(values: Float64Array): number {
  let best = 0;
  for (let index = 1; index < values.length; index += 1) if (values[index]! > values[best]!) best = index;
  return best;
}

export function confidenceOf(intents: readonly AgentMatch[]): 'high' | 'medium' | 'low' {
  if (intents.length === 0) return 'low';
  if (intents.every((intent) => intent.keywords.length > 0)) return 'high';
  if (intents.every((intent) => intent.keywords.length > 0 || intent.value !== undefined)) return 'medium';
  return Math.min(...intents.map((intent) => intent.coverage)) >= 0.45 ? 'medium' : 'low';
}

export function reasonOf(intents: readonly AgentMatch[]): string {
  if (intents.length === 0) return 'no keyword and nothing close to any card\'s examples';
  return intents
    .map((intent) =>
      intent.keywords.length > 0
        ? `${intent.agentId}: keyword ${intent.keywords.join('/')}`
        : intent.value !== undefined
          ? `${intent.agentId}: value ${intent.value} names it`
          : `${intent.agentId}: close to its examples (similarity ${intent.coverage})`,
    )
    .join('; ');
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}


