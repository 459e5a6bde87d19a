/**
 * Clarification (contract v4): when the evidence does not decide between two
 * or three agents, or is weak for the only one, the turn asks "do you mean A
 * or B?" instead of guessing or answering "out of scope". This file holds what
 * both recognisers and the graph share: the option list built from candidate
 * agents (labels in the query's language, never an agent id in a label), the
 * offline decision from the ranker's shortlist, and reading the next turn's
 * answer — a `choose` option id, or text that names an option by its label,
 * name or ordinal ("第二个", "the first one", "2").
 */
import { clarificationLabelText, type Language } from '../i18n/index.js';
import { allNames, cardDescription, cardName, type RegistrySnapshot } from '../registry/index.js';
import type { RankShortlist } from './routing/card-ranker.js';
import type { Clarification, ClarificationOption } from '../events/index.js';

/** At most this many options are offered. */
export const MAX_CLARIFICATION_OPTIONS = 3;

/** Longest description gist kept in a label, in characters. */
const MAX_GIST_CHARS = 48;

/** The first clause of a description, clipped: "a few words of what it does". */
function gistOf(description: string): string {
  const first = description.trim().split(/(?<=[。！？!?；;])|(?<=\.)\s/u)[0]?.trim().replace(/[。.；;]+$/u, '') ?? '';
  return first.length <= MAX_GIST_CHARS ? first : `${first.slice(0, MAX_GIST_CHARS - 1).trimEnd()}…`;
}

const HAN = /\p{Script=Han}/u;

/**
 * Whether a gist reads in `language`: Chinese holds Han characters, English none. A description written in one
 * language only ("查询宠物疫苗接种时间表" under an English name) is left out of the other language's label, which
 * then is the name alone.
 */
function readsIn(gist: string, language: Language): boolean {
  return HAN.test(gist) === (language === 'zh');
}

/**
 * The clarification offering `agentIds` (enabled agents only, duplicates dropped, at most three) in
 * `language`; undefined when none is left.
 */
export function buildClarification(agentIds: readonly string[], snapshot: Pick<RegistrySnapshot, 'byId'>, language: Language): Clarification | undefined {
  const cards = [...new Set(agentIds)].map((agentId) => snapshot.byId.get(agentId)).filter((card) => card?.enabled === true).slice(0, MAX_CLARIFICATION_OPTIONS);
  if (cards.length === 0) return undefined;
  return {
    options: cards.map((card, index) => ({
      option_id: `opt_${index + 1}`,
      sub_agent_id: card!.id,
      label: labelOf(card!, language),
    })),
  };
}

/** An option's label: the card's name, and the gist of its description when that reads in `language`. */
function labelOf(card: Parameters<typeof cardName>[0] & Parameters<typeof cardDescription>[0], language: Language): string {
  const gist = gistOf(cardDescription(card, language));
  return clarificationLabelText(cardName(card, language), readsIn(gist, language) ? gist : '', language);
}

/**
 * Thresholds of the offline decision. Defaults chosen on the BANKING77 train split's rows not drawn as examples
 * (`bench/public-routing.ts --split dev`, k = 10 and 20), never on its test split. Asking more often finds the
 * right agent more often and offers options to more out-of-scope requests; these keep ≥ 60 % of out-of-scope
 * requests unrouted and leave ≤ 5 % of in-scope ones with nothing (dev: 83.8 % routed or offered at k = 10, 88.9 %
 * at k = 20, options on 39 % / 46 % of out-of-scope lines). Options on ≤ 30 % of out-of-scope lines would cost
 * about 7 points of routed-or-offered and leave 12 % to 17 % of in-scope requests with nothing.
 */
export interface ClarifyThresholds {
  /**
   * A similarity-only route stands (given to the shortlist's first card) when both models back that card this much
   * (`RankShortlist.backing`, the mean of its share under each). Default 0.8.
   */
  routeShare: number;
  /** Options are offered when the two models back their most backed card at least this much (`backing`)… Default 0.3. */
  offerShare: number;
  /** …that card's texts hold at least this share of the query (and share a word with it)… Default 0.3. */
  minCovered: number;
  /**
   * …and the query's cosine to its texts' centroid is at least this. Default 0: on BANKING77 (dev) 0.06 keeps
   * options off 4 % more out-of-scope lines at k = 20, but a registry of few short examples has low centroids
   * for requests plainly meant for a card.
   */
  minCentroid: number;
  /** A second or third candidate is offered only with at least this share. Default 0.01. */
  optionShare: number;
}

export const DEFAULT_CLARIFY_THRESHOLDS: ClarifyThresholds = { routeShare: 0.8, offerShare: 0.3, minCovered: 0.3, minCentroid: 0, optionShare: 0.01 };

/**
 * What the offline recogniser does with a request routed on similarity alone (`routed`), or not routed at
 * all (undefined): route it (`agentId`: to another card than the one routed), offer the shortlist's
 * candidates, or nothing (out of scope). On a registry whose cards do not stand apart, a similarity route goes
 * to the shortlist's first card: both models together rank the right card first more often than the example
 * model's nearest texts do (BANKING77 dev, k = 10: 77 % against 72 % of the requests routed on similarity).
 */
export function decideClarification(list: RankShortlist, routed: string | undefined, thresholds: ClarifyThresholds = DEFAULT_CLARIFY_THRESHOLDS): { route: true; agentId?: string } | { offer: string[] } | { nothing: true } {
  const first = list.candidates[0];
  // Cards that stand apart: a similarity route is trusted, only a request nothing routed is asked about.
  if (!first || (routed !== undefined && list.separable)) return routed ? { route: true } : { nothing: true };
  const routeTo = (agentId: string) => (agentId === routed ? { route: true as const } : { route: true as const, agentId });
  if (routed !== undefined && list.backing >= thresholds.routeShare) return routeTo(first.agentId);
  // Too little for options: a similarity route (its out-of-scope gate passed) stands; no route stays none.
  const near = list.backing >= thresholds.offerShare && list.covered >= thresholds.minCovered && list.centroid >= thresholds.minCentroid && list.shared >= 1;
  if (!near) return routed ? routeTo(first.agentId) : { nothing: true };
  // The ranker's own route (it passed the ranker's gate) is always among the options, in the last place if need be.
  const offer = list.candidates.filter((candidate, index) => index === 0 || candidate.share >= thresholds.optionShare).map((candidate) => candidate.agentId).slice(0, MAX_CLARIFICATION_OPTIONS);
  if (routed !== undefined && !offer.includes(routed)) offer.splice(Math.min(offer.length, MAX_CLARIFICATION_OPTIONS - 1), 1, routed);
  return { offer };
}

const ORDINALS: Record<string, number> = {
  一: 1, '1': 1, first: 1, '1st': 1, one: 1,
  二: 2, 两: 2, '2': 2, second: 2, '2nd': 2, two: 2,
  三: 3, '3': 3, third: 3, '3rd': 3, three: 3,
};
const ZH_ORDINAL = /^(?:我)?(?:选|要|选择|是)?(?:第)?([一二两三123])(?:个|项|种|条|号)?(?:吧|吗|呢|的|选项|服务)?$/u;
const ZH_LAST = /^(?:我)?(?:选|要|选择|是)?(?:最后一个|最后一项|最后那个)(?:吧)?$/u;
const EN_ORDINAL =
  /^(?:(?:i|i'd|i would|i'll)\s+(?:like|want|choose|pick|take|mean|go with)\s+)?(?:option|number|no\.?|#)?\s*(?:the\s+)?(first|second|third|1st|2nd|3rd|one|two|three|1|2|3|last)(?:\s+(?:one|option))?(?:\s+please)?$/iu;
const FILLER = /[\s\p{P}\p{S}]|我要|我选|选择|就是|是|吧|呢|的|那个|这个|please|\bthe\b|\bi\b|\bwant\b|\bmean\b|\bone\b|\bthat\b|\bservice\b/giu;

/**
 * The option `text` names, or undefined when it names none (a new request): an ordinal, a bare yes for a
 * single option, or an option's label or its agent's name with little else around it. `text` is the message in
 * its normal form, as the turn's reading holds it (`QueryReading.normalizedQuery`).
 */
export function optionNamedIn(text: string, clarification: Clarification, snapshot: Pick<RegistrySnapshot, 'byId'>, yes = false): ClarificationOption | undefined {
  const { options } = clarification;
  if (yes && options.length === 1) return options[0];
  const plain = text.trim().toLowerCase().replace(/[。.!！?？,，\s]+$/u, '');
  if (plain === '') return undefined;
  const squeezed = plain.replace(/\s+/gu, '');
  const ordinal = ZH_ORDINAL.exec(squeezed)?.[1] ?? EN_ORDINAL.exec(plain.replace(/[,，]/gu, ' ').replace(/\s+/gu, ' '))?.[1];
  if (ordinal !== undefined) {
    const position = ordinal === 'last' ? options.length : ORDINALS[ordinal];
    return position !== undefined ? options[position - 1] : undefined;
  }
  if (ZH_LAST.test(squeezed)) return options[options.length - 1];
  const named = options.filter((option) => {
    const card = snapshot.byId.get(option.sub_agent_id);
    const names = [option.label, ...(card ? allNames(card) : [])].map((name) => name.normalize('NFKC').toLowerCase().trim()).filter((name) => name.length > 0);
    return names.some((name) => plain.includes(name) && plain.split(name).join(' ').replace(FILLER, '').length <= 4);
  });
  return named.length === 1 ? named[0] : undefined;
}
