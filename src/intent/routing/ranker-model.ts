/**
 * What the example ranker builds once per registry snapshot: the example
 * model over the enabled cards, the keyword matcher (with `supervisor.synonyms`
 * and English plurals), and the finder of known slot values — enum values and
 * matches of pattern-typed keys — which are masked out of similarity and are
 * evidence of their own.
 */
import type { AgentCard, RegistrySnapshot } from '../../registry/index.js';
import { buildExampleIndex, type ExampleIndex, type TextMask } from './example-index.js';
import { createPhraseMatcher, normalizeText, type PhraseMatcher } from '../../text/index.js';
import type { PatternMatch, SafePattern } from '../../util/index.js';
import { buildKeywordCharacters, type KeywordCharacters } from './registry-evidence.js';
import { trainGramClassifier, type GramClassifier } from './gram-classifier.js';
import type { CalibrationExample } from './gate-calibration.js';

export interface SnapshotModel {
  cards: readonly AgentCard[];
  index: ExampleIndex;
  keywords: PhraseMatcher<number>;
  /** The text plus the card words its `supervisor.synonyms` equivalents stand for. */
  withSynonyms: (text: string) => string;
  /** Nearest-example cosine for a single-clause query to route without a keyword (see `minSimilarity`). */
  minSimilarity: number;
  /** The out-of-scope gate (see `gate-calibration.ts`): share of the text a card's texts hold, centroid cosine. */
  minCovered: number;
  minCentroid: number;
  /** Spans of known slot values in a normalised text: enum values, and matches of every pattern-typed key. */
  masksOf: (text: string) => ValueSpan[];
  /** Weights of the characters of the cards' Chinese keywords (see `registry-evidence.ts`). */
  keywordCharacters: KeywordCharacters;
  /** The discriminative n-gram model of the cards' texts (see `gram-classifier.ts`). */
  grams: GramClassifier;
  /** Probability the discriminative model must give a card to route a request nothing else routes (calibrated). */
  gramConfidence: number;
  /** Whether it may give a similarity route to the example model's second card (held-out check). */
  gramReorders: boolean;
}

/**
 * A known slot value in the text; `owner` is the only enabled card that asks for it, if there is one.
 * `value` is where the value itself is when the match also holds a label the pattern reads around it
 * ("订单 2024051812345678": the label 订单, the value the digits).
 */
export interface ValueSpan extends TextMask {
  owner?: number;
  value?: TextMask;
  /** For a match of a pattern-typed key: the enabled cards that ask for a value of that kind. */
  family?: readonly number[];
  /** For a value listed by enum-typed keys: every enabled card that lists it (`owner` when it is one). */
  cards?: readonly number[];
}

export function buildModel(snapshot: RegistrySnapshot): SnapshotModel {
  const cards = snapshot.enabledAgents;
  const values = createPhraseMatcher(
    snapshot.agents.flatMap((card) =>
      card.requiredKeys.flatMap((spec) => (spec.extract.type === 'enum' ? spec.extract.values.map((value) => ({ phrase: value, payload: card.id })) : [])),
    ),
  );
  // Pattern-typed keys (order numbers, codes): their matches are values too, and a kind of value (one
  // pattern, however many cards declare it) names the family of cards asking for it. Each distinct
  // pattern runs once per query, so the cost grows with the kinds of value, not with the cards.
  const kinds = new Map<string, { matcher: SafePattern; family: number[] }>();
  cards.forEach((card, cardIndex) => {
    for (const spec of card.requiredKeys) {
      if (spec.extract.type !== 'pattern') continue;
      const key = `${spec.extract.flags}/${spec.extract.pattern}`;
      const kind = kinds.get(key) ?? { matcher: spec.extract.matcher, family: [] };
      if (!kind.family.includes(cardIndex)) kind.family.push(cardIndex);
      kinds.set(key, kind);
    }
  });
  // Values are left out of similarity (a city says nothing about which card is meant, and a value's words
  // must not become a card's vocabulary); a value only one enabled card asks for (a refund reason,
  // "七天无理由") names that card, as a keyword would (see `rank`).
  const cardIndexOf = new Map(cards.map((card, cardIndex) => [card.id, cardIndex]));
  const enumMasks = (text: string): ValueSpan[] =>
    values.findAll(text).map((hit) => ({
      start: hit.start,
      end: hit.end,
      owner: hit.payloads.length === 1 ? cardIndexOf.get(hit.payloads[0]!) : undefined,
      cards: [...new Set(hit.payloads.flatMap((id) => cardIndexOf.get(id) ?? []))],
    }));
  const masksOf = (text: string): ValueSpan[] => {
    const masks = enumMasks(text);
    for (const { matcher, family } of kinds.values()) {
      for (const match of matcher.findAll(text)) masks.push({ start: match.start, end: match.end, value: capturedSpan(match), family });
    }
    return masks;
  };
  const index = buildExampleIndex(
    cards.map((card) => ({
      examples: card.examples.map((example) => example.normalize('NFKC')),
      descriptions: [card.name, card.description, card.keywords.join(' '), card.requiredKeys.map((spec) => spec.description).join(' ')]
        .filter((text) => text.trim().length > 0)
        .map((text) => text.normalize('NFKC')),
    })),
    { masksOf: (text) => enumMasks(normalizeText(text)) },
  );
  // `supervisor.synonyms` (last resort): a word users say instead of a card's keyword counts as that keyword,
  // and in similarity the word the cards use is added to the text.
  const synonymsOf = new Map<string, string[]>();
  for (const [word, equivalents] of Object.entries(snapshot.supervisor.synonyms ?? {})) synonymsOf.set(word.toLowerCase(), [...equivalents]);
  const equivalents = createPhraseMatcher([...synonymsOf].flatMap(([word, list]) => list.map((phrase) => ({ phrase, payload: word }))));
  // English keywords also match their plural ("hotels", "flights").
  const keywords = createPhraseMatcher(
    cards.flatMap((card, cardIndex) =>
      card.keywords
        .flatMap((phrase) => [phrase, ...(synonymsOf.get(phrase.toLowerCase()) ?? [])])
        .flatMap((phrase) => [phrase, ...(/[a-z]$/iu.test(phrase) ? [`${phrase}${/(?:s|x|ch|sh)$/iu.test(phrase) ? 'es' : 's'}`] : [])])
        .map((phrase) => ({ phrase, payload: cardIndex })),
    ),
  );
  // The word the cards use, in normal form: the example model reads texts already in it.
  const synonymForms = new Map([...synonymsOf.keys()].map((word) => [word, word.normalize('NFKC')]));
  const withSynonyms = (text: string): string => {
    const words = [...new Set(equivalents.findAll(text).flatMap((hit) => hit.payloads))].map((word) => synonymForms.get(word) ?? word);
    return words.length > 0 ? `${text} ${words.join(' ')}` : text;
  };
  // The discriminative model learns from the same texts: examples, and the name, description and keywords of each card.
  // Enum values are masked as for the example model; pattern values need no matcher here (digits give no n-gram).
  const gramDocuments = cards.flatMap((card, cardIndex) =>
    [...card.examples, card.name, card.description, ...card.keywords].flatMap((raw) => {
      const text = normalizeText(raw);
      return text.trim().length > 0 ? [{ text, card: cardIndex, masks: enumMasks(text) }] : [];
    }),
  );
  // It routes only where it ranks nine in ten held-out examples first (it had not seen them): on a registry of
  // many near-identical cards it does not. The 0.9 is a judgement, not calibrated. It is trained on everything
  // either way: the shortlist a clarification offers (`shortlist.ts`) reads it beside the example model.
  const grams = trainGramClassifier(gramDocuments, cards.length, { minHeldOutRight: 0 });
  const trusted = grams.heldOut.length > 0 && grams.heldOut.filter((example) => example.first).length >= 0.9 * grams.heldOut.length;
  // How sure it must be: what a held-out example it ranks right gets for its own card, lower quartile, within
  // 0.5..0.9. Too few held-out examples (a small registry), a single card, or not trusted: never sure enough.
  const right = grams.heldOut.filter((example) => example.first).map((example) => example.own).sort((a, b) => a - b);
  const usable = trusted && right.length >= 8 && cards.length >= 2;
  const gramConfidence = usable ? Math.min(0.9, Math.max(0.5, right[Math.floor(0.25 * (right.length - 1))]!)) : Infinity;
  const gramReorders = usable;
  return { cards, index, keywords, masksOf, withSynonyms, grams, gramConfidence, gramReorders, keywordCharacters: buildKeywordCharacters(cards, (text) => keywords.findAll(text, { overlapping: true })), minSimilarity: 0, minCovered: 0.2, minCentroid: 0.02 };
}

/** Where the first capture group that took part is inside the match, when it is shorter than the match. */
function capturedSpan(match: PatternMatch): TextMask | undefined {
  const group = match.groups.find((value): value is string => value !== null && value.length > 0);
  if (group === undefined || group.length >= match.text.length) return undefined;
  const offset = match.text.lastIndexOf(group);
  return offset < 0 ? undefined : { start: match.start + offset, end: match.start + offset + group.length };
}

/**
 * The examples of the enabled cards that no keyword of their own card routes, in normal form (registry
 * text, normalised here): what the ranker calibrates its out-of-scope gate on.
 */
export function keywordFreeExamples(model: SnapshotModel): CalibrationExample[] {
  return model.cards.flatMap((card, cardIndex) =>
    card.examples.flatMap((example, exampleIndex) => {
      const text = normalizeText(example);
      const ownKeyword = model.keywords.findAll(text, { overlapping: true }).some((hit) => hit.payloads.includes(cardIndex));
      return ownKeyword ? [] : [{ cardIndex, exampleIndex, text }];
    }),
  );
}
