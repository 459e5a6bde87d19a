/**
 * Ranks capability cards against a query with no model.
 *
 * Two signals, scored per clause and for the whole query, best kept per card:
 * - Keywords (strong): a card's `keywords` found in the text. A keyword inside
 *   a longer known slot value is ignored ("机场" inside "首都机场" is a place,
 *   not a request for a service).
 * - Similarity (weaker): binary BM25 (k1 → 0: each term counts once, no length
 *   normalisation, which suits fields a sentence long) of the clause's terms
 *   against the card's name, keywords, examples, description and key
 *   descriptions, with per-field boosts, divided by the clause's total term
 *   weight. The result, "coverage", is in [0, 1]: the idf-weighted share of
 *   the clause the card explains. Known slot values (every `enum` value in the
 *   registry, e.g. city names) are masked out of both the cards and the query.
 *
 * A card is chosen from a clause when one of its keywords is there, or when
 * its coverage reaches `minCoverage` (with at least one bigram/word matched,
 * not only lone characters) and is close to the best card of that clause.
 * Where another card's keyword is in the clause, a similarity-only card must
 * also explain the clause better than that card does.
 * Score: keyword → 0.75 + 0.25 × coverage; similarity only → 0.7 × coverage,
 * so a keyword match always outranks a similarity match. A card's `clause` is
 * the single clause that chose it best, even when the whole query scored
 * higher: its values are read from there (see `clause-values.ts`).
 *
 * The index is built once per snapshot (a WeakMap keyed by the frozen
 * snapshot object), so ranking costs a few map lookups per query term.
 */
import { allNames } from '../registry/localized-text.js';
import type { AgentCard, RegistrySnapshot } from '../registry/types.js';
import type { RankedIntent } from './types.js';
import { createPhraseMatcher, type PhraseHit, type PhraseMatcher } from '../text/phrase-matcher.js';
import { splitClauses } from './clause-splitter.js';
import { normalizeText, termsOf, type Term } from '../text/text-terms.js';

/** A ranked card with the evidence that chose it. */
export interface AgentMatch extends RankedIntent {
  /** Keywords of the card found in the query. */
  keywords: string[];
  /** Idf-weighted share of the best clause explained by the card, 0..1. */
  coverage: number;
  /** The clause (or whole query) that gave the best score. */
  clause: string;
  /** Where that evidence starts in the normalised query (for stable ordering). */
  position: number;
  /** A slot value only this card asks for, when that (not a keyword) named it. */
  value?: string;
}

/** What `rank` returns: chosen cards best first and an overall confidence. */
export interface RankResult {
  intents: AgentMatch[];
  confidence: 'high' | 'medium' | 'low';
  reason: string;
}

/** Tuning knobs; the defaults are set on the sample registries. */
export interface AgentRankerOptions {
  /** Minimum coverage for a card chosen without a keyword. Default 0.5. */
  minCoverage?: number;
  /** A similarity-only card must reach this share of the clause's best coverage. Default 0.6. */
  relativeCoverage?: number;
  /** In a clause where some card matched by keyword, others need this coverage. Default 0.75. */
  coverageBesideKeyword?: number;
  /** Longer queries are cut to this many characters before ranking. Default 2000. */
  maxQueryLength?: number;
}

/** Ranks the enabled cards of a snapshot against a query. */
export interface AgentRanker {
  rank(query: string, snapshot: RegistrySnapshot): RankResult;
}

const FIELD_BOOSTS = { keywords: 1, name: 1, examples: 0.85, keyDescriptions: 0.7, description: 0.7 } as const;
const SINGLE_CHARACTER_WEIGHT = 0.4;

interface Posting {
  card: number;
  weight: number;
}

interface SnapshotIndex {
  cards: readonly AgentCard[];
  postings: Map<string, Posting[]>;
  idf: (term: string) => number;
  keywords: PhraseMatcher<number>;
  values: PhraseMatcher<true>;
}

/** Builds the per-snapshot index: terms → cards, keyword and slot-value matchers. */
function buildIndex(snapshot: RegistrySnapshot): SnapshotIndex {
  const cards = snapshot.enabledAgents;
  const values = createPhraseMatcher(
    snapshot.agents.flatMap((card) =>
      card.requiredKeys.flatMap((spec) => (spec.extract.type === 'enum' ? spec.extract.values.map((value) => ({ phrase: value, payload: true as const })) : [])),
    ),
  );
  const postings = new Map<string, Posting[]>();
  cards.forEach((card, cardIndex) => {
    const weights = new Map<string, number>();
    const addField = (texts: readonly string[], boost: number) => {
      for (const text of texts) {
        const normalized = normalizeText(text);
        for (const term of termsOf(normalized, values.findAll(normalized))) {
          weights.set(term.text, Math.max(weights.get(term.text) ?? 0, boost));
        }
      }
    };
    addField(card.keywords, FIELD_BOOSTS.keywords);
    addField(allNames(card), FIELD_BOOSTS.name);
    addField(card.examples, FIELD_BOOSTS.examples);
    addField(card.requiredKeys.map((spec) => spec.description), FIELD_BOOSTS.keyDescriptions);
    addField([card.description, ...Object.values(card.descriptions ?? {})], FIELD_BOOSTS.description);
    for (const [term, weight] of weights) {
      const list = postings.get(term) ?? [];
      list.push({ card: cardIndex, weight });
      postings.set(term, list);
    }
  });
  const total = Math.max(cards.length, 1);
  const idf = (term: string) => {
    const frequency = Math.max(postings.get(term)?.length ?? 0, 1);
    return Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
  };
  const keywords = createPhraseMatcher(cards.flatMap((card, cardIndex) => card.keywords.map((phrase) => ({ phrase, payload: cardIndex }))));
  return { cards, postings, idf, keywords, values };
}

interface Unit {
  text: string;
  start: number;
  end: number;
  /** The whole query (as opposed to one of its clauses). */
  whole: boolean;
}

interface CardEvidence {
  score: number;
  coverage: number;
  keywords: Set<string>;
  clause: string;
  position: number;
  unitLength: number;
  /** The best single clause that chose the card, when one did: the card's own part of the query. */
  ownClause?: { score: number; clause: string; position: number };
}

/** Creates a ranker with its own per-snapshot index cache. */
export function createAgentRanker(options: AgentRankerOptions = {}): AgentRanker {
  const minCoverage = options.minCoverage ?? 0.5;
  const relativeCoverage = options.relativeCoverage ?? 0.6;
  const coverageBesideKeyword = options.coverageBesideKeyword ?? 0.75;
  const maxQueryLength = options.maxQueryLength ?? 2000;
  const cache = new WeakMap<RegistrySnapshot, SnapshotIndex>();

  function indexFor(snapshot: RegistrySnapshot): SnapshotIndex {
    let index = cache.get(snapshot);
    if (!index) {
      index = buildIndex(snapshot);
      cache.set(snapshot, index);
    }
    return index;
  }

  function termWeight(index: SnapshotIndex, term: Term): number {
    return index.idf(term.text) * (term.single ? SINGLE_CHARACTER_WEIGHT : 1);
  }

  return {
    rank(query, snapshot) {
      const index = indexFor(snapshot);
      const text = normalizeText(typeof query === 'string' ? query : '').slice(0, maxQueryLength);
      if (text.length === 0 || index.cards.length === 0) return { intents: [], confidence: 'low', reason: 'empty query or no enabled agents' };

      const valueHits = index.values.findAll(text);
      const keywordHits = index.keywords
        .findAll(text, { overlapping: true })
        .filter((hit) => !valueHits.some((value) => value.start <= hit.start && hit.end <= value.end && value.end - value.start > hit.end - hit.start));

      const clauses = splitClauses(text);
      const units: Unit[] = [{ text, start: 0, end: text.length, whole: true }];
      if (clauses.length > 1) for (const clause of clauses) units.push({ text: clause.text, start: clause.start, end: clause.start + clause.text.length, whole: false });

      const evidence = new Map<number, CardEvidence>();
      for (const unit of units) scoreUnit(index, unit, valueHits, keywordHits, evidence);

      const intents: AgentMatch[] = [...evidence.entries()]
        .map(([cardIndex, found]) => ({
          agentId: index.cards[cardIndex]!.id,
          score: round(found.score),
          keywords: [...found.keywords],
          coverage: round(found.coverage),
          clause: found.ownClause?.clause ?? found.clause,
          position: found.ownClause?.position ?? found.position,
        }))
        .sort((a, b) => b.score - a.score || a.position - b.position);
      return { intents, confidence: confidenceOf(intents), reason: reasonOf(intents) };
    },
  };

  function scoreUnit(
    index: SnapshotIndex,
    unit: Unit,
    valueHits: readonly PhraseHit<true>[],
    keywordHits: readonly PhraseHit<number>[],
    evidence: Map<number, CardEvidence>,
  ): void {
    const masks = valueHits
      .filter((hit) => hit.start >= unit.start && hit.end <= unit.end)
      .map((hit) => ({ start: hit.start - unit.start, end: hit.end - unit.start }));
    const terms = termsOf(unit.text, masks);
    let totalWeight = 0;
    const matched = new Map<number, { weight: number; strong: boolean }>();
    for (const term of terms) {
      const weight = termWeight(index, term);
      totalWeight += weight;
      for (const posting of index.postings.get(term.text) ?? []) {
        const entry = matched.get(posting.card) ?? { weight: 0, strong: false };
        entry.weight += weight * posting.weight;
        entry.strong ||= !term.single;
        matched.set(posting.card, entry);
      }
    }
    const keywordsByCard = new Map<number, { keywords: Set<string>; position: number }>();
    for (const hit of keywordHits) {
      if (hit.start < unit.start || hit.end > unit.end) continue;
      for (const cardIndex of hit.payloads) {
        const entry = keywordsByCard.get(cardIndex) ?? { keywords: new Set<string>(), position: hit.start };
        entry.keywords.add(hit.phrase);
        keywordsByCard.set(cardIndex, entry);
      }
    }
    const coverageOf = (cardIndex: number) => (totalWeight > 0 ? Math.min(1, (matched.get(cardIndex)?.weight ?? 0) / totalWeight) : 0);
    let bestCoverage = 0;
    for (const cardIndex of matched.keys()) bestCoverage = Math.max(bestCoverage, coverageOf(cardIndex));

    // A card named by a keyword in this unit explains it; a card that is only similar must explain it better.
    let keywordCoverage = 0;
    for (const cardIndex of keywordsByCard.keys()) keywordCoverage = Math.max(keywordCoverage, coverageOf(cardIndex));
    const candidates = new Set<number>([...matched.keys(), ...keywordsByCard.keys()]);
    for (const cardIndex of candidates) {
      const coverage = coverageOf(cardIndex);
      const keywordEntry = keywordsByCard.get(cardIndex);
      let score: number;
      if (keywordEntry) {
        score = 0.75 + 0.25 * coverage;
      } else {
        const strong = matched.get(cardIndex)?.strong ?? false;
        const needed = keywordsByCard.size > 0 ? Math.max(minCoverage, coverageBesideKeyword) : minCoverage;
        if (!strong || coverage < needed || coverage < relativeCoverage * bestCoverage) continue;
        if (keywordsByCard.size > 0 && coverage <= keywordCoverage) continue;
        score = 0.7 * coverage;
      }
      const previous = evidence.get(cardIndex);
      const unitLength = unit.end - unit.start;
      const keywords = new Set([...(previous?.keywords ?? []), ...(keywordEntry?.keywords ?? [])]);
      const position = keywordEntry?.position ?? unit.start;
      const ownClause =
        !unit.whole && (!previous?.ownClause || score > previous.ownClause.score) ? { score, clause: unit.text, position } : previous?.ownClause;
      if (!previous || score > previous.score || (score === previous.score && unitLength < previous.unitLength)) {
        evidence.set(cardIndex, { score, coverage, keywords, clause: unit.text, position, unitLength, ...(ownClause ? { ownClause } : {}) });
      } else {
        previous.keywords = keywords;
        if (ownClause) previous.ownClause = ownClause;
      }
    }
  }
}

function confidenceOf(intents: readonly AgentMatch[]): 'high' | 'medium' | 'low' {
  if (intents.length === 0) return 'low';
  if (intents.every((intent) => intent.keywords.length > 0)) return 'high';
  return Math.min(...intents.map((intent) => intent.score)) >= 0.45 ? 'medium' : 'low';
}

function reasonOf(intents: readonly AgentMatch[]): string {
  if (intents.length === 0) return 'no capability card matched the query';
  return intents
    .map((intent) =>
      intent.keywords.length > 0
        ? `${intent.agentId}: keyword ${intent.keywords.join('/')}`
        : `${intent.agentId}: similar to its card (coverage ${intent.coverage})`,
    )
    .join('; ');
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
