/**
 * Whether a short message leans on the previous turn: "地址呢？", "那后天呢",
 * "and the day after?", "what about Shanghai?" name no service of their own,
 * so the supervisor keeps the previous turn's agents; "那边天气怎么样" names a
 * service but takes its place from the previous turn, so its values are read
 * with the previous request in view.
 *
 * Two more readings decide between keeping and switching the previous agents
 * when no keyword names a card:
 * - A comparison or an ask for alternatives ("有没有更便宜的", "还有别的吗",
 *   "any cheaper ones?") is about what the previous turn found: the compared
 *   attribute is not a request of its own (`withoutComparison`).
 * - A place reference ("那边冷吗", "how hot is it there?") is about the place
 *   of the previous turn; what is left of the message may still be another
 *   card's words (`withoutPlaceReference`, `createWordOwnership`).
 *
 * Every rule reads a query in normal form (`IntentInput.normalizedQuery`).
 */
import { allNames, type RegistrySnapshot } from '../registry/index.js';
import { normalizeText, stemWord, termsOf } from '../text/index.js';

const HAN = /\p{Script=Han}/gu;
const ZH_LEAD = /^(?:那|那么|那就|还有|换成|改成|换到|改到|如果|要是|再)/u;
const ZH_TAIL = /(?:呢|吗|么)\s*[?？!！。.]*$/u;
const EN_LEAD = /^(?:and|what about|how about|what if|same|also|then)\b/iu;
const EN_REFERENCE = /\b(?:it|its|there|that|that one|same)\b/iu;
const ZH_PLACE_REFERENCE = /那边|那里|那儿|当地|同一个地方|那个城市/gu;
const EN_PLACE_REFERENCE = /\b(?:there|same city|same place)\b/giu;
/** A compared attribute ("更便宜", "便宜一点") or an ask for other results ("别的", "其他", "另一家", "换一家"). */
const ZH_COMPARISON = /更\p{Script=Han}{1,2}|\p{Script=Han}{1,2}一点(?:的|儿)?|别的|其他|其它|另一\p{Script=Han}?|另外一\p{Script=Han}?|换(?:一|个)\p{Script=Han}?/gu;
/** "cheaper", "a bigger one", "anything else", "other options". */
const EN_COMPARISON =
  /\b(?:cheaper|pricier|closer|nearer|bigger|larger|smaller|better|quieter|earlier|later)(?:\s+(?:one|ones|option|options))?\b|\b(?:another|other|others|else)(?:\s+(?:one|ones|option|options))?\b|\bmore\s+(?:options|choices)\b/giu;

/** Options of the follow-up rules. */
export interface FollowUpOptions {
  /** Most Chinese characters of a follow-up. Default 10. */
  maxHan?: number;
  /** Most Latin words of a follow-up. Default 7. */
  maxWords?: number;
}

/** True when `text` is a short message that only makes sense after the previous turn. */
export function isFollowUp(text: string, options: FollowUpOptions = {}): boolean {
  if (!isShort(text, options)) return false;
  if (isChinese(text)) return ZH_LEAD.test(text) || ZH_TAIL.test(text);
  return EN_LEAD.test(text) || EN_REFERENCE.test(text) || /\?\s*$/u.test(text);
}

/** True when `text` points at the place (or thing) of the previous turn ("那边", "there"). */
export function refersToPreviousTurn(text: string): boolean {
  return new RegExp(ZH_PLACE_REFERENCE.source, 'u').test(text) || new RegExp(EN_PLACE_REFERENCE.source, 'iu').test(text);
}

/** `text` with its place references ("那边", "there") taken out. */
export function withoutPlaceReference(text: string): string {
  return text.replace(ZH_PLACE_REFERENCE, ' ').replace(EN_PLACE_REFERENCE, ' ');
}

/**
 * For a short message that compares with, or asks for alternatives to, what
 * the previous turn found: the message without the compared attribute and the
 * alternative words ("有没有更便宜的" → "有没有 的", "还有别的酒店吗" → "还有 酒店吗").
 * `undefined` when the message is long or has no such words.
 */
export function withoutComparison(text: string, options: FollowUpOptions = {}): string | undefined {
  if (!isShort(text, options)) return undefined;
  const pattern = isChinese(text) ? ZH_COMPARISON : EN_COMPARISON;
  const rest = text.replace(pattern, ' ');
  return rest === text ? undefined : rest;
}

/** Which cards' own texts hold the words of a message. */
export interface WordOwnership {
  /**
   * Ids of the enabled cards that alone, among the enabled cards, use a word
   * of `text` in their examples, keywords, names or descriptions ("冷" is only
   * in the weather card's examples). Particles, stop words and words several
   * cards use name no card.
   */
  ownersOf(text: string, snapshot: RegistrySnapshot): Set<string>;
}

/** Creates the word-ownership reader with its own per-snapshot cache. */
export function createWordOwnership(): WordOwnership {
  const cache = new WeakMap<RegistrySnapshot, CardTexts[]>();
  const textsOf = (snapshot: RegistrySnapshot): CardTexts[] => {
    let texts = cache.get(snapshot);
    if (!texts) {
      texts = snapshot.enabledAgents.map((card) => {
        const joined = normalizeText(
          [...card.examples, ...card.keywords, ...allNames(card), card.description, ...Object.values(card.descriptions ?? {})].join('\n'),
        ).toLowerCase();
        const words = new Set((joined.match(/[a-z][a-z0-9']*/gu) ?? []).map((word) => stemWord(word.replace(/'s$|'/gu, ''))));
        return { id: card.id, joined, words };
      });
      cache.set(snapshot, texts);
    }
    return texts;
  };
  return {
    ownersOf(text, snapshot) {
      const cards = textsOf(snapshot);
      const owners = new Set<string>();
      // A Chinese term counts as itself and as each of its characters ("冷不冷" is about "冷").
      const pieces = termsOf(text).flatMap((term) => (/^[a-z]/u.test(term.text) || term.single ? [term.text] : [term.text, ...term.text]));
      for (const piece of new Set(pieces)) {
        const users = cards.filter((card) => (/^[a-z]/u.test(piece) ? card.words.has(piece) : card.joined.includes(piece)));
        if (users.length === 1) owners.add(users[0]!.id);
      }
      return owners;
    },
  };
}

interface CardTexts {
  id: string;
  joined: string;
  words: Set<string>;
}

function isShort(text: string, options: FollowUpOptions): boolean {
  if (text.length === 0) return false;
  const han = (text.match(HAN) ?? []).length;
  if (isChinese(text)) return han <= (options.maxHan ?? 10);
  const words = (text.match(/[A-Za-z]+/gu) ?? []).length;
  return words > 0 && words <= (options.maxWords ?? 7);
}

function isChinese(text: string): boolean {
  const han = (text.match(HAN) ?? []).length;
  return han > 0 && han >= (text.match(/[A-Za-z]+/gu) ?? []).length;
}
