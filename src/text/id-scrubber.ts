/**
 * Keeps internals out of user-facing text. A scrubber is built from a list of
 * literal terms (an agent id, a header value, an endpoint address, each with
 * the text that shows instead) and regular-expression patterns (an id the
 * model made up); the per-event guard, the streamed model answer and the
 * failure reasons of sub-agent calls all build theirs here.
 *
 * Matching is one left-to-right pass: at each position the longest match of
 * any term or pattern wins, so an address that contains an id is replaced as
 * an address, and a replacement is never scanned again. A `wholeWord` term
 * counts only when it is not part of a longer identifier (`hotel` is not
 * found in `hotel_2`).
 *
 * The streaming form holds back the tail of the text until it knows whether
 * it starts a term, so deltas shown to the user are already clean and their
 * concatenation equals the scrubbed whole text.
 */
import { type Language, relatedServiceText } from '../i18n/index.js';

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
  /** Longest text the pattern can match; the stream holds back this much before judging. */
  maxLength: number;
}

/** What a scrubber hides. */
export interface TextScrubberOptions {
  terms?: readonly ScrubTerm[];
  patterns?: readonly ScrubPattern[];
}

/** Scrubs complete texts and streams of deltas. */
export interface TextScrubber {
  /** The text with every term and pattern replaced (a non-string becomes `''`). */
  scrub(text: string): string;
  /** A stream filter: `push` returns what may be shown now, `flush` the rest at the end. */
  stream(): { push(delta: string): string; flush(): string };
}

interface Matcher {
  regex: RegExp;
  replace: (match: string) => string;
}

interface Match {
  start: number;
  end: number;
  replacement: string;
}

const WORD = /[A-Za-z0-9_]/;
const WORD_BEFORE = '(?<![A-Za-z0-9_])';
const WORD_AFTER = '(?![A-Za-z0-9_])';
/** A snake_case word ending in `_agent`: how a model writes an agent id it made up. */
const INVENTED_ID = new RegExp(`${WORD_BEFORE}[a-z][a-z0-9]*(?:_[a-z0-9]+)*_agent${WORD_AFTER}`);
const INVENTED_ID_MAX_LENGTH = 24;

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
    matchers.push({ regex: new RegExp(source, 'g'), replace: (match) => replacements.get(match) ?? match });
  }
  for (const { pattern, replacement } of patterns) {
    const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
    matchers.push({ regex: new RegExp(pattern.source, flags.replace('y', '')), replace: typeof replacement === 'string' ? () => replacement : replacement });
  }
  // Longest text a held-back term may need before it can be judged (term + one lookahead character).
  const holdBack = Math.max(INVENTED_ID_MAX_LENGTH, ...terms.map((term) => term.text.length), ...patterns.map((pattern) => pattern.maxLength)) + 1;

  const scrub = (text: string): string => {
    if (typeof text !== 'string') return '';
    if (matchers.length === 0) return text;
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
    stream() {
      let pending = '';
      // Last character already shown, so a word boundary at the start of `pending` is judged correctly.
      let before = '';
      const emit = (upTo: number, final: boolean): string => {
        let out = '';
        let position = 0;
        let limit = upTo;
        const offset = before.length;
        for (const match of findMatches(matchers, before + pending, offset)) {
          const start = match.start - offset;
          const end = match.end - offset;
          if (start >= limit) break;
          // A match reaching the end of what arrived may still grow: keep it back whole.
          if (!final && end >= pending.length) {
            limit = start;
            break;
          }
          out += pending.slice(position, start) + match.replacement;
          position = end;
        }
        const cut = Math.max(position, limit);
        out += pending.slice(position, cut);
        if (cut > 0) before = pending[cut - 1]!;
        pending = pending.slice(cut);
        return out;
      };
      return {
        push(delta) {
          if (typeof delta !== 'string' || delta.length === 0) return '';
          pending += delta;
          const upTo = pending.length - holdBack;
          if (upTo <= 0) return '';
          // Never cut in the middle of a word: a term could start inside it.
          let safe = upTo;
          while (safe > 0 && WORD.test(pending[safe - 1]!) && WORD.test(pending[safe]!)) safe -= 1;
          return safe > 0 ? emit(safe, false) : '';
        },
        flush() {
          return emit(pending.length, true);
        },
      };
    },
  };
}

/** Terms that show each agent's `name` in place of its id (whole words only). */
export function idTerms(cards: readonly { id: string; name: string }[]): ScrubTerm[] {
  return cards.map((card) => ({ text: card.id, replacement: card.name, wholeWord: true }));
}

/** Terms that redact secret values (header values) and each word of one long enough to be a secret on its own. */
export function secretTerms(values: Iterable<string>, replacement = '[redacted]'): ScrubTerm[] {
  return [...values]
    .flatMap((value) => [value, ...value.split(/[\s,;]+/).filter((word) => word.length >= 6)])
    .filter((secret) => secret.length >= 4)
    .map((text) => ({ text, replacement }));
}

/** A pattern that shows a neutral phrase in place of an agent id the model made up (`train_agent`). */
export function inventedIdPattern(language: Language): ScrubPattern {
  return { pattern: INVENTED_ID, replacement: relatedServiceText(language), maxLength: INVENTED_ID_MAX_LENGTH };
}

/** The scrubber of model-written text: known ids become names, made-up ids a neutral phrase in `language`. */
export function createIdScrubber(cards: readonly { id: string; name: string }[], language: Language = 'zh'): TextScrubber {
  return createTextScrubber({ terms: idTerms(cards), patterns: [inventedIdPattern(language)] });
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
        candidate = nextMatch(matchers[index]!, text, position);
        next[index] = candidate;
      }
      if (candidate && (!best || candidate.start < best.start || (candidate.start === best.start && candidate.end > best.end))) best = candidate;
    }
    if (!best) return;
    yield best;
    position = best.end;
  }
}

/** The first non-empty match of one matcher at or after `position`, or null. */
function nextMatch(matcher: Matcher, text: string, position: number): Match | null {
  let at = position;
  while (at <= text.length) {
    matcher.regex.lastIndex = at;
    const found = matcher.regex.exec(text);
    if (!found) return null;
    if (found[0].length > 0) return { start: found.index, end: found.index + found[0].length, replacement: matcher.replace(found[0]) };
    at = found.index + 1;
  }
  return null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
