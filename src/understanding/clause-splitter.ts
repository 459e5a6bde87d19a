import { isFunctionTerm } from '../text/index.js';

/**
 * Splits a query into clauses, one request each: at punctuation and at
 * connectives (再 然后 并且 … and also then …), and at 和/跟 right before a
 * second request verb ("订北京的酒店和查上海的天气"). A bare 和 between nouns
 * ("北京的酒店和天气") is not a break: the value there belongs to both.
 *
 * Tokens that carry punctuation of their own are never cut: email addresses,
 * URLs, dotted names (example.com, v1.2), decimals (3.5), numbers with
 * thousands separators (1,299) and clock times (10:30). A cut there would
 * hand a sub-agent `zhang` for `zhang.san@example.com`.
 */

/** A clause of the query and where it starts in the text. */
export interface Clause {
  text: string;
  start: number;
}

const CLAUSE_BREAK = new RegExp(
  [
    '[,，。;；!！?？、\\n]+',
    '\\.(?=\\s|$|[^\\x00-\\x7F])',
    '\\s*(?:(?:然后|并且|同时|另外|还有|顺便|以及|还要|此外|再)\\s*)+',
    '\\s*(?:和|跟|并)\\s*(?=(?:帮我|给我|再)?(?:查|订|看|问|预订|预约|安排|叫|约|买|退|开|办|找))',
    '\\s+(?:(?:and|also|then|plus|as well as)\\s+)+',
  ].join('|'),
  'giu',
);

/** Spans inside which no break is taken. */
const PROTECTED = new RegExp(
  [
    '(?:https?|ftp)://[^\\s，。；！？、<>"]+[^\\s，。；！？、<>".,;:!?)]',
    '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)+',
    '[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)+',
    '\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?',
    '\\d{1,2}[:：]\\d{2}(?:[:：]\\d{2})?',
  ].join('|'),
  'gi',
);

/** Splits `text` at clause breaks outside protected tokens; each clause is trimmed and non-empty. */
export function splitClauses(text: string): Clause[] {
  const guarded = [...text.matchAll(PROTECTED)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
  const inside = (start: number, end: number) => guarded.some((span) => start < span.end && span.start < end);
  const clauses: Clause[] = [];
  let last = 0;
  const push = (end: number) => {
    const raw = text.slice(last, end);
    const trimmed = raw.trim();
    if (trimmed.length > 0) clauses.push({ text: trimmed, start: last + raw.indexOf(trimmed) });
  };
  for (const match of text.matchAll(CLAUSE_BREAK)) {
    if (match[0].length === 0 || inside(match.index, match.index + match[0].length)) continue;
    push(match.index);
    last = match.index + match[0].length;
  }
  push(text.length);
  return clauses;
}

/** The text between two neighbouring clauses (the separator the user wrote). */
export function separatorBetween(text: string, left: Clause, right: Clause): string {
  return text.slice(left.start + left.text.length, right.start);
}

/**
 * Separators that start another request rather than go on with the same one: 另外, 还有, 顺便, 然后, 再, 和
 * before a request verb (the only 和 `splitClauses` cuts at) …, "also", "then", "plus", "as well as". "and"
 * does when a question (`REQUEST_START`) follows, and any separator does before an order with content
 * (`startsOrder`). A comma, a full stop or any other "and" does not: "I made a transfer yesterday, but it
 * still hasn't arrived. Can you check?" is one request in three clauses.
 */
const REQUEST_BREAK = /然后|并且|同时|另外|还有|顺便|以及|还要|此外|再|和|跟|并|(?<![a-z])(?:also|then|plus|as well as)(?![a-z])/iu;

/** "and" starts another request when a question or an order follows it: "…, and where is my parcel now". */
const AND_BEFORE = /(?<![a-z])and\s*$/iu;
const REQUEST_START = /^(?:please\s+)?(?:where|what|when|which|who|how|is|are|can|could|will|would|do|does|tell|show|check|book|find|get|give|send|cancel|change|set|make|order|reserve|arrange|call|track|issue)(?![a-z])/iu;
/** A Chinese order: an optional 帮我 / 请 …, then a request verb ("帮我转五十块到储蓄账户"). */
const ORDER_ZH = /^(?:帮我|给我|请|麻烦你?|顺便)?(?:查|订|预订|预约|安排|叫|约|买|退|开|办|取消|转|付|交|改|设|提醒)/u;
/**
 * An order in the imperative: a word that is not a subject, an adverb or a past form, then its object
 * ("… and transfer 50 dollars", "… and remind me", "… and report my card stolen"), not "… and it still
 * isn't here" or "… and waited a week".
 */
const IMPERATIVE = /^(?:please\s+)?(?!(?:i|you|he|she|it|we|they|someone|somebody|everyone|there|this|that|still|yet|now|again|never|always|only|even|just|really|then|so|not|also|all|both)(?![a-z]))[a-z]+(?<!ed)\s+(?:me|my|a|an|the|some|our|your|his|her|their|this|that|these|those|it|\d)(?![a-z])/iu;

/** An order of its own: an imperative with some content ("help me with that" is not one). */
function startsOrder(text: string): boolean {
  return (IMPERATIVE.test(text) || ORDER_ZH.test(text)) && hasContent(text);
}

/** At least two words that are not function words, or four Chinese characters: not "hi there", not "麻烦你". */
function hasContent(text: string): boolean {
  const words = (text.match(/[a-z]{3,}/giu) ?? []).filter((word) => !isFunctionTerm(word.toLowerCase())).length;
  return words >= 2 || (text.match(/\p{Script=Han}/gu) ?? []).length >= 4;
}

/**
 * The query's requests: its clauses grouped between separators that start another request (see
 * `REQUEST_BREAK`); an order starts one only when something was said before it. Each request is the
 * text from its first clause to its last.
 */
export function splitRequests(text: string, clauses: readonly Clause[] = splitClauses(text)): Clause[] {
  const requests: Clause[] = [];
  let first: Clause | undefined;
  let last: Clause | undefined;
  const close = () => {
    if (first && last) requests.push({ text: text.slice(first.start, last.start + last.text.length), start: first.start });
  };
  for (const clause of clauses) {
    const separator = last ? separatorBetween(text, last, clause) : '';
    if (last && (REQUEST_BREAK.test(separator) || (AND_BEFORE.test(separator) && REQUEST_START.test(clause.text)) || (startsOrder(clause.text) && hasContent(text.slice(first!.start, last.start + last.text.length))))) {
      close();
      first = undefined;
    }
    first ??= clause;
    last = clause;
  }
  close();
  return requests;
}

