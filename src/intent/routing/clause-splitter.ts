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
