/**
 * Streamed text (a sub-agent's progress chunks, the model's answer deltas)
 * reaches the client and the stored events one chunk at a time, and every
 * guard works on one chunk: a header secret, an agent id or a phone number
 * split across two chunks ("1381234" + "5678") would pass the content guard
 * and land in storage in two pieces the personal-data masking cannot
 * recognise. So each stream holds back the tail of what arrived that could
 * still grow into something a guard must see whole, and lets it out with the
 * next chunk or at the end of the stream:
 *
 * - the longest tail that is the beginning of a guarded literal (an agent id,
 *   a header value, an endpoint address), and
 * - the trailing run of characters a personal value is made of (letters,
 *   digits, `_ . % + @ -`, and a space or dash between digits, as card numbers
 *   are written), up to `maxTokenTail` characters, which covers every built-in
 *   kind (CONTRACT §7) and registry patterns of word characters.
 *
 * Only what can still grow is held: text ending in a space, a CJK character or
 * punctuation goes out at once, so progress messages are not delayed. A
 * literal found whole is never cut. What goes out is scrubbed.
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
  /** Literal texts that must never be cut (ids, header values, addresses). */
  terms: readonly string[];
  /** Longest trailing token run held back for personal data. Default 64. */
  maxTokenTail?: number;
}

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

/** Length of the longest tail of `text` that is a proper beginning of one of `terms`. */
export function termPrefixTailLength(text: string, terms: readonly string[]): number {
  let longest = 0;
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
  return longest;
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
  const terms = options.terms.filter((term) => term.length > 1);
  const maxTokenTail = options.maxTokenTail ?? 64;
  let pending = '';
  return {
    push(chunk) {
      if (typeof chunk !== 'string' || chunk.length === 0) return '';
      const text = pending + chunk;
      const hold = Math.max(tokenTailLength(text, maxTokenTail), termPrefixTailLength(text, terms));
      const cut = cutOutsideTerms(text, text.length - hold, terms);
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
