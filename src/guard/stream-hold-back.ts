/**
 * Streamed text (a sub-agent's progress messages, the model's answer deltas)
 * reaches the client and the stored events one chunk at a time, and every
 * guard works on one chunk: a header secret, an agent id or a phone number
 * split across two chunks ("1381234" + "5678") would pass the content guard
 * and land in storage in two pieces the personal-data masking cannot
 * recognise. So each stream holds back the tail of what arrived that could
 * still grow into something a guard must see whole, and lets it out with the
 * next chunk or at the end of the stream.
 *
 * What is held depends on the kind of stream:
 *
 * - `tokens` (model deltas, which clients append): every tail that is the
 *   beginning of a guarded literal, and the whole trailing run of characters
 *   a personal value is made of (letters, digits, `_ . % + @ -`, a space
 *   between digits as card numbers are written), up to `maxTokenTail`.
 * - `messages` (sub-agent progress, which clients show one message at a time):
 *   only what would leak something: any beginning of a header secret (a
 *   secret's tail alone is not recognised, so none of it may go out first),
 *   a beginning of at least four characters of another literal (an id or an
 *   address split earlier leaks only a few characters of something that is
 *   not a secret), and a trailing run that already looks like part of a
 *   personal value (five digits or more, or an `@`). Ordinary progress such as
 *   "查询进度 12" goes out as it came.
 *
 * A literal found whole is never cut. What goes out is scrubbed.
 */

/** One stream's filter: `push` returns what may be shown now (scrubbed), `flush` the rest at the end. */
export interface HeldStream {
  push(chunk: string): string;
  flush(): string;
}

/** What a held stream guards. */
export interface StreamHoldBackOptions {
  /** The guard applied to every piece that goes out. */
  scrub: (text: string) => string;
  /** Secret literals (header values): no beginning of one ever goes out before the rest. */
  secrets: readonly string[];
  /** Other guarded literals (ids, addresses): never cut once whole. */
  terms: readonly string[];
  /** `tokens` (default) holds every possible beginning; `messages` only what would leak (see the file header). */
  kind?: 'tokens' | 'messages';
  /** Longest trailing token run held back for personal data. Default 64. */
  maxTokenTail?: number;
}

/** In `messages` streams, the shortest beginning of a non-secret literal that is held. */
const MIN_TERM_PREFIX = 4;
/** In `messages` streams, a trailing run is held once it has this many digits (or an `@`). */
const VALUE_LIKE_DIGITS = 5;

const TOKEN = /[\w.%+@-]/;
const DIGIT = /[0-9]/;
const ALPHANUMERIC = /[A-Za-z0-9]/;

/** Length of the trailing run a personal value could still be growing in (0 when none). */
export function tokenTailLength(text: string, max: number): number {
  let start = text.length;
  while (start > 0 && text.length - start < max) {
    const char = text[start - 1]!;
    if (TOKEN.test(char)) {
      start -= 1;
      continue;
    }
    // A space between digits ("6222 0212 …") or after a digit at the very end (the next group may follow).
    if (char === ' ' && start >= 2 && DIGIT.test(text[start - 2]!) && (start === text.length || DIGIT.test(text[start]!))) {
      start -= 1;
      continue;
    }
    break;
  }
  // A run starting with separators only ("...") cannot be the start of a value.
  while (start < text.length && !ALPHANUMERIC.test(text[start]!)) start += 1;
  return text.length - start;
}

/** True when a trailing run already looks like part of a personal value. */
function looksLikeValue(run: string): boolean {
  return run.includes('@') || (run.match(/[0-9]/g)?.length ?? 0) >= VALUE_LIKE_DIGITS;
}

/** Length of the longest tail of `text` (at least `minLength` long) that is a proper beginning of one of `terms`. */
export function termPrefixTailLength(text: string, terms: readonly string[], minLength = 1): number {
  let longest = minLength - 1;
  for (const term of terms) {
    const from = Math.max(0, text.length - term.length + 1);
    for (let index = from; index < text.length; index++) {
      if (text.length - index <= longest) break;
      if (text[index] === term[0] && term.startsWith(text.slice(index))) {
        longest = text.length - index;
        break;
      }
    }
  }
  return longest >= minLength ? longest : 0;
}

/** Moves `cut` back to the start of any whole literal that spans it. */
function cutOutsideTerms(text: string, cut: number, terms: readonly string[]): number {
  let result = cut;
  for (let changed = true; changed; ) {
    changed = false;
    for (const term of terms) {
      let at = text.indexOf(term, Math.max(0, result - term.length + 1));
      while (at >= 0 && at < result) {
        if (at + term.length > result) {
          result = at;
          changed = true;
          break;
        }
        at = text.indexOf(term, at + 1);
      }
    }
  }
  return result;
}

/** Starts one held stream (one agent's progress, one answer's deltas). */
export function createHeldStream(options: StreamHoldBackOptions): HeldStream {
  const secrets = options.secrets.filter((term) => term.length > 1);
  const others = options.terms.filter((term) => term.length > 1);
  const terms = [...secrets, ...others];
  const messages = options.kind === 'messages';
  const maxTokenTail = options.maxTokenTail ?? 64;
  const holdLength = (text: string): number => {
    const run = tokenTailLength(text, maxTokenTail);
    const token = messages && !looksLikeValue(text.slice(text.length - run)) ? 0 : run;
    const literal = messages
      ? Math.max(termPrefixTailLength(text, secrets), termPrefixTailLength(text, others, MIN_TERM_PREFIX))
      : termPrefixTailLength(text, terms);
    return Math.max(token, literal);
  };
  let pending = '';
  return {
    push(chunk) {
      if (typeof chunk !== 'string' || chunk.length === 0) return '';
      const text = pending + chunk;
      const cut = cutOutsideTerms(text, text.length - holdLength(text), terms);
      pending = text.slice(cut);
      return cut > 0 ? options.scrub(text.slice(0, cut)) : '';
    },
    flush() {
      const rest = pending;
      pending = '';
      return rest.length > 0 ? options.scrub(rest) : '';
    },
  };
}
