/**
 * Finds known phrases (keywords, enum values, lexicon entries) in text in one
 * pass, so the cost of a lookup grows with the length of the text rather than
 * with the number of phrases: phrases are bucketed by their first character.
 *
 * Matching is case-insensitive for ASCII letters. A phrase that starts or ends
 * with an ASCII letter or digit only matches on a word boundary on that side
 * ("hotel" does not match inside "hotelier"); Chinese phrases match anywhere.
 */

/** One occurrence of a phrase; `start`/`end` index the text as given. */
export interface PhraseHit<Payload> {
  start: number;
  end: number;
  /** The phrase as registered (lowercased ASCII). */
  phrase: string;
  /** Every payload registered under this phrase. */
  payloads: readonly Payload[];
}

/** A compiled set of phrases. */
export interface PhraseMatcher<Payload> {
  /**
   * Occurrences in text order. `overlapping: false` (default) keeps the
   * leftmost-longest non-overlapping hits; `true` reports every phrase found at
   * every position.
   */
  findAll(text: string, options?: { overlapping?: boolean }): PhraseHit<Payload>[];
  readonly size: number;
}

interface Entry<Payload> {
  phrase: string;
  payloads: Payload[];
  boundaryStart: boolean;
  boundaryEnd: boolean;
}

const WORD_CHARACTER = /[a-z0-9]/;

/** Lowercases ASCII letters only, so string positions never shift. */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Builds a matcher from phrase/payload pairs; empty phrases are ignored. */
export function createPhraseMatcher<Payload>(
  entries: Iterable<{ phrase: string; payload: Payload }>,
): PhraseMatcher<Payload> {
  const byPhrase = new Map<string, Entry<Payload>>();
  for (const { phrase, payload } of entries) {
    const key = lowerAscii(phrase.normalize('NFKC').trim());
    if (key.length === 0) continue;
    let entry = byPhrase.get(key);
    if (!entry) {
      entry = {
        phrase: key,
        payloads: [],
        boundaryStart: WORD_CHARACTER.test(key[0]!),
        boundaryEnd: WORD_CHARACTER.test(key[key.length - 1]!),
      };
      byPhrase.set(key, entry);
    }
    if (!entry.payloads.includes(payload)) entry.payloads.push(payload);
  }
  const byFirstCharacter = new Map<string, Entry<Payload>[]>();
  for (const entry of byPhrase.values()) {
    const bucket = byFirstCharacter.get(entry.phrase[0]!) ?? [];
    bucket.push(entry);
    byFirstCharacter.set(entry.phrase[0]!, bucket);
  }
  for (const bucket of byFirstCharacter.values()) bucket.sort((a, b) => b.phrase.length - a.phrase.length);

  function matchesAt(text: string, entry: Entry<Payload>, start: number): boolean {
    if (!text.startsWith(entry.phrase, start)) return false;
    if (entry.boundaryStart && start > 0 && WORD_CHARACTER.test(text[start - 1]!)) return false;
    const end = start + entry.phrase.length;
    if (entry.boundaryEnd && end < text.length && WORD_CHARACTER.test(text[end]!)) return false;
    return true;
  }

  return {
    size: byPhrase.size,
    findAll(text, options = {}) {
      const lowered = lowerAscii(text);
      const hits: PhraseHit<Payload>[] = [];
      let position = 0;
      while (position < lowered.length) {
        const bucket = byFirstCharacter.get(lowered[position]!);
        let advance = 1;
        if (bucket) {
          for (const entry of bucket) {
            if (!matchesAt(lowered, entry, position)) continue;
            hits.push({ start: position, end: position + entry.phrase.length, phrase: entry.phrase, payloads: entry.payloads });
            if (!options.overlapping) {
              advance = entry.phrase.length;
              break;
            }
          }
        }
        position += advance;
      }
      return hits;
    },
  };
}
