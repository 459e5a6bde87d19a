/**
 * Keeps internals out of user-facing text. A scrubber is built from a list of
 * literal terms (an agent id, a header value, an endpoint address, each with
 * the text that shows instead) and regular-expression patterns (an id the
 * model made up); the per-event guard, the streamed model answer, sub-agent
 * progress and the failure reasons of sub-agent calls all build theirs here.
 *
 * Matching is one left-to-right pass: at each position the longest match of
 * any term or pattern wins, so an address that contains an id is replaced as
 * an address, and a replacement is never scanned again. A `wholeWord` term
 * counts only when it is not part of a longer identifier (`hotel` is not
 * found in `hotel_2`).
 *
 * Streams (`scrub-stream.ts`) hold back exactly the tail that could still grow
 * into a term, a pattern's match or a value kept whole (`keepWhole`: personal
 * values, shown as they are but masked later one piece at a time), so no piece
 * shown carries part of one and the pieces add up to the scrubbed whole text.
 */
import { credentialParts } from './credential-parts.js';
import type { DisguisedSecrets } from './disguised-secrets.js';
import { countCost } from '../util/index.js';
import { createDeltaStream, createMessageStream, type DeltaStream, type MessageStream, type ScrubSpan, type StreamJudge } from './scrub-stream.js';

/** A literal text to hide and what shows instead. */
export interface ScrubTerm {
  text: string;
  replacement: string;
  /** Only where the text is not part of a longer identifier (letters, digits, `_`). Default false. */
  wholeWord?: boolean;
}

/** A shape of text to hide (flags other than `g` are kept) and what shows instead. */
export interface ScrubPattern {
  pattern: RegExp;
  replacement: string | ((match: string) => string);
  /** Length of the longest tail of a text that could still grow into a match (a stream holds it back). */
  tail: (text: string) => number;
}

/** Text shown as it is that a stream must never split between two pieces (a value masked later, piece by piece). */
export interface KeepWhole {
  /** The stretches of `text` that are such values. */
  spans: (text: string) => Iterable<{ start: number; end: number }>;
  /** Length of the longest tail of a text that could still grow into one. */
  tail: (text: string) => number;
}

/** What a scrubber hides. */
export interface TextScrubberOptions {
  terms?: readonly ScrubTerm[];
  patterns?: readonly ScrubPattern[];
  keepWhole?: readonly KeepWhole[];
  /** Secrets also looked for in disguise (case, invisible characters, spaces, encodings), with what shows instead. */
  disguised?: { secrets: DisguisedSecrets; replacement: string };
}

/** Scrubs complete texts and streams of deltas. */
export interface TextScrubber {
  /** The text with every term and pattern replaced (a non-string becomes `''`). */
  scrub(text: string): string;
  /** A filter of deltas a reader appends (the model's answer). */
  stream(): DeltaStream;
  /** A filter of messages a reader shows one at a time (progress); `tag` travels with each message. */
  messages<T>(): MessageStream<T>;
}

interface Matcher {
  /** The first non-empty match at or after `position` (or reaching past it), or null. */
  next(text: string, position: number): Match | null;
}

type Match = Required<ScrubSpan>;

const WORD = /[A-Za-z0-9_]/;
const WORD_BEFORE = '(?<![A-Za-z0-9_])';
const WORD_AFTER = '(?![A-Za-z0-9_])';
/** A snake_case word ending in `_agent`: how a model writes an agent id it made up. */
const INVENTED_ID = new RegExp(`${WORD_BEFORE}[a-z][a-z0-9]*(?:_[a-z0-9]+)*_agent${WORD_AFTER}`);
/** Longest made-up id a stream holds back whole. */
const INVENTED_ID_MAX_LENGTH = 64;

/** Builds a scrubber from terms and patterns (see the file header). */
export function createTextScrubber(options: TextScrubberOptions): TextScrubber {
  const terms = (options.terms ?? []).filter((term) => term.text.length > 0);
  const patterns = options.patterns ?? [];
  const matchers: Matcher[] = [];
  for (const wholeWord of [true, false]) {
    const group = terms.filter((term) => (term.wholeWord ?? false) === wholeWord);
    if (group.length === 0) continue;
    const replacements = new Map<string, string>();
    for (const term of group) if (!replacements.has(term.text)) replacements.set(term.text, term.replacement);
    const alternatives = [...replacements.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
    const source = wholeWord ? `${WORD_BEFORE}(?:${alternatives})${WORD_AFTER}` : `(?:${alternatives})`;
    matchers.push(regexMatcher(new RegExp(source, 'g'), (match) => replacements.get(match) ?? match));
  }
  for (const { pattern, replacement } of patterns) {
    const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
    matchers.push(regexMatcher(new RegExp(pattern.source, flags.replace('y', '')), typeof replacement === 'string' ? () => replacement : replacement));
  }
  if (options.disguised && options.disguised.secrets.longest > 0) matchers.push(disguisedMatcher(options.disguised.secrets, options.disguised.replacement));
  const tails = [
    ...patterns.map((pattern) => pattern.tail),
    ...(options.keepWhole ?? []).map((kept) => kept.tail),
    ...(options.disguised ? [options.disguised.secrets.tail] : []),
  ];
  const judge: StreamJudge = {
    matches: (text, from) => [...findMatches(matchers, text, from)],
    keptWhole: (text) => (options.keepWhole ?? []).flatMap((kept) => [...kept.spans(text)].map(({ start, end }) => ({ start, end }))),
    growingTail: (text) => Math.max(termTail(terms, text), ...tails.map((tail) => tail(text))),
  };

  const scrub = (text: string): string => {
    if (typeof text !== 'string') return '';
    if (matchers.length === 0) return text;
    countCost('guard passes');
    countCost('guard chars', text.length);
    let out = '';
    let position = 0;
    for (const match of findMatches(matchers, text, 0)) {
      out += text.slice(position, match.start) + match.replacement;
      position = match.end;
    }
    return out + text.slice(position);
  };

  return {
    scrub,
    stream: () => createDeltaStream(judge),
    messages: <T>() => createMessageStream<T>(judge),
  };
}

/** Length of the longest tail of `text` that is a proper beginning of a term (where the term could still start). */
function termTail(terms: readonly ScrubTerm[], text: string): number {
  let longest = 0;
  for (const term of terms) {
    for (let length = Math.min(term.text.length - 1, text.length); length > longest; length -= 1) {
      const start = text.length - length;
      if (text.charCodeAt(start) !== term.text.charCodeAt(0) || !term.text.startsWith(text.slice(start))) continue;
      if (term.wholeWord && start > 0 && WORD.test(text[start - 1]!)) continue;
      longest = length;
      break;
    }
  }
  return longest;
}

/** Terms that show each agent's `name` in place of its id (whole words only). */
export function idTerms(cards: readonly { id: string; name: string }[]): ScrubTerm[] {
  return cards.map((card) => ({ text: card.id, replacement: card.name, wholeWord: true }));
}

/**
 * Terms that redact secret values (header values): each value whole, its
 * credential without the auth scheme, and each opaque part of it
 * (`credential-parts.ts`); the scheme word and ordinary words stay readable.
 */
export function secretTerms(values: Iterable<string>, replacement = '[redacted]'): ScrubTerm[] {
  return [...new Set([...values].flatMap((value) => credentialParts(value)))].map((text) => ({ text, replacement }));
}

/** A pattern that shows `replacement` (a neutral phrase in the user's language) in place of an agent id the model made up (`train_agent`). */
export function inventedIdPattern(replacement: string): ScrubPattern {
  return { pattern: INVENTED_ID, replacement, tail: inventedIdTail };
}

/** The trailing word when it could still become a made-up id: lower-case letters, digits and `_`, starting with a letter. */
function inventedIdTail(text: string): number {
  let start = text.length;
  while (start > 0 && WORD.test(text[start - 1]!)) {
    start -= 1;
    if (text.length - start > INVENTED_ID_MAX_LENGTH) return 0;
  }
  return /^[a-z][a-z0-9_]*$/.test(text.slice(start)) ? text.length - start : 0;
}

/** Non-overlapping matches from `from` on, left to right; at one position the longest wins, then the earlier matcher. */
function* findMatches(matchers: readonly Matcher[], text: string, from: number): Generator<Match> {
  const next: (Match | null | undefined)[] = matchers.map(() => undefined);
  let position = from;
  while (position <= text.length) {
    let best: Match | undefined;
    for (let index = 0; index < matchers.length; index += 1) {
      let candidate = next[index];
      if (candidate === undefined || (candidate !== null && candidate.start < position)) {
        candidate = matchers[index]!.next(text, position);
        next[index] = candidate;
      }
      if (candidate && (!best || candidate.start < best.start || (candidate.start === best.start && candidate.end > best.end))) best = candidate;
    }
    if (!best) return;
    yield best;
    position = best.end;
  }
}

/** A matcher over a global regular expression: its first non-empty match at or after the position. */
function regexMatcher(regex: RegExp, replace: (match: string) => string): Matcher {
  return {
    next(text, position) {
      let at = position;
      while (at <= text.length) {
        regex.lastIndex = at;
        const found = regex.exec(text);
        if (!found) return null;
        if (found[0].length > 0) return { start: found.index, end: found.index + found[0].length, replacement: replace(found[0]) };
        at = found.index + 1;
      }
      return null;
    },
  };
}

/**
 * A matcher over disguised secrets: the first stretch that reaches past the
 * position; one that began before it (inside text another match took) is
 * replaced from the position on, so no part of a secret is left.
 */
function disguisedMatcher(secrets: DisguisedSecrets, replacement: string): Matcher {
  return {
    next(text, position) {
      // Stretches are sorted and apart, so their ends are sorted too: the first one ending past the position.
      const spans = secrets.spans(text);
      let low = 0;
      let high = spans.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (spans[middle]!.end <= position) low = middle + 1;
        else high = middle;
      }
      const span = spans[low];
      return span ? { start: Math.max(span.start, position), end: span.end, replacement } : null;
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
