/**
 * Evidence a registry already holds besides its examples' words, read when
 * similarity alone leaves a request with no agent:
 *
 * - **Kinds of value.** A pattern-typed key (an order number, a booking code)
 *   is shared by a family of cards (order, parcel, refund, invoice). A value
 *   of that kind in a request says the request is one of that family; the
 *   request's own words then say which: the family card that shares a content
 *   word with the request (a word or a Chinese term of two characters or more
 *   of its texts) and is the most likely under the example model.
 * - **Characters of a keyword.** A Chinese word that shares characters with a
 *   card's keyword without being it ("派送" beside 配送, "L码" beside 尺码)
 *   counts for that card at a weight calibrated on the registry's examples:
 *   the share of the examples holding that character that belong to the card
 *   (with one more example counted as no card's, so one chance example is weak)
 *   outside any keyword (送 in a shop's registry is nearly always the parcel card's;
 *   用 is not anyone's; 票 only ever inside 发票 counts for nothing). Function characters (的, 了, 我 …) count for nothing.
 */
import type { AgentCard } from '../../registry/index.js';
import { isFunctionTerm, normalizeText } from '../../text/index.js';
import type { TextMask } from './example-features.js';

const HAN = /\p{Script=Han}/u;

/** Per card, the calibrated weight of each character of its Chinese keywords. */
export interface KeywordCharacters {
  /**
   * For each card, the summed weight of the distinct characters of `text` (masked spans left out) that are
   * characters of that card's keywords; all zero when none are.
   */
  evidence(text: string, masks?: readonly TextMask[]): Float64Array;
  /**
   * True when `text` (masked spans left out) holds a character of one of the card's keywords that the card's
   * examples never hold outside a keyword: 店 of 酒店 in "火锅店" names another kind of place, not the card's.
   * Keywords themselves are not told apart: ask of a text that holds none (or mask them).
   */
  strays(text: string, cardIndex: number, masks?: readonly TextMask[]): boolean;
}

/** Builds the keyword-character weights of `cards` from their keywords and examples (`keywordSpans`: where any card's keyword is in a text). */
export function buildKeywordCharacters(cards: readonly AgentCard[], keywordSpans: (text: string) => readonly TextMask[]): KeywordCharacters {
  // Which cards' examples hold each character outside any keyword (each example counted once): 票 inside
  // 发票 is the keyword itself and says nothing about 票 alone; 送 in "什么时候能送到" does.
  const holders = new Map<string, Map<number, number>>();
  cards.forEach((card, cardIndex) => {
    for (const example of card.examples) {
      const text = normalizeText(example);
      const inKeyword = new Uint8Array(text.length);
      for (const span of keywordSpans(text)) inKeyword.fill(1, span.start, span.end);
      let rest = '';
      for (let index = 0; index < text.length; index += 1) if (inKeyword[index] === 0) rest += text[index];
      for (const char of new Set(rest)) {
        if (!HAN.test(char)) continue;
        const byCard = holders.get(char) ?? new Map<number, number>();
        byCard.set(cardIndex, (byCard.get(cardIndex) ?? 0) + 1);
        holders.set(char, byCard);
      }
    }
  });
  // char → [card, weight]: P(card | an example holds the character), for the characters of the card's keywords.
  const weights = new Map<string, { cardIndex: number; weight: number }[]>();
  const strayCharacters = cards.map(() => new Set<string>());
  cards.forEach((card, cardIndex) => {
    const chars = new Set(card.keywords.flatMap((keyword) => [...normalizeText(keyword)].filter((char) => HAN.test(char) && !isFunctionTerm(char))));
    for (const char of chars) {
      const byCard = holders.get(char);
      const total = byCard ? [...byCard.values()].reduce((sum, count) => sum + count, 0) : 0;
      // One more example counted as no card's: a character one example happens to hold is weak evidence.
      // A character no example of the card holds outside a keyword gets no weight, and marks a stray use.
      const weight = (byCard?.get(cardIndex) ?? 0) / (total + 1);
      if (weight === 0) {
        strayCharacters[cardIndex]!.add(char);
        continue;
      }
      const list = weights.get(char) ?? [];
      list.push({ cardIndex, weight });
      weights.set(char, list);
    }
  });
  return {
    evidence(text, masks = []) {
      const found = new Float64Array(cards.length);
      const seen = new Set<string>();
      for (let index = 0; index < text.length; index += 1) {
        const char = text[index]!;
        if (seen.has(char) || !weights.has(char) || masks.some((mask) => mask.start <= index && index < mask.end)) continue;
        seen.add(char);
        for (const { cardIndex, weight } of weights.get(char)!) found[cardIndex]! += weight;
      }
      return found;
    },
    strays(text, cardIndex, masks = []) {
      const own = strayCharacters[cardIndex];
      if (!own || own.size === 0) return false;
      for (let index = 0; index < text.length; index += 1) {
        if (own.has(text[index]!) && !masks.some((mask) => mask.start <= index && index < mask.end)) return true;
      }
      return false;
    },
  };
}

/**
 * The card of a family a value names, told by the request's own words: among `family`, the cards sharing
 * something with the text besides the value (a content word, `strong` ≥ 1, or any feature, `nearest` > 0: "买了什么"),
 * the most likely (`posterior`); undefined when none shares anything (a bare "订单号 2024…"). With `anyFeature`
 * false, only a content word counts.
 */
export function familyCard(family: Iterable<number>, scores: { posterior: Float64Array; strong: Uint8Array; nearest: Float64Array }, anyFeature = true): number | undefined {
  let best: number | undefined;
  for (const cardIndex of family) {
    if (scores.strong[cardIndex]! < 1 && (!anyFeature || scores.nearest[cardIndex]! <= 0)) continue;
    if (best === undefined || scores.posterior[cardIndex]! > scores.posterior[best]!) best = cardIndex;
  }
  return best;
}
