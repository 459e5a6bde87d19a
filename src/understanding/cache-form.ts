/**
 * The form a text takes in a cache key, so the same question asked with other
 * widths, punctuation, case or spacing finds the same entry: the normal form
 * (NFKC: full-width → half-width), CJK punctuation mapped to its ASCII
 * counterpart, lower case, single spaces and none around punctuation, trimmed.
 * The message's is made from its reading's normal form (nothing is normalised
 * again); a text that is not the message (a task's message, for the response
 * and answer caches) is normalised here first.
 */

const PUNCTUATION: Readonly<Record<string, string>> = { '。': '.', '、': ',', '「': '"', '」': '"', '“': '"', '”': '"', '‘': "'", '’': "'", '～': '~' };

/** The cache-key form of a text already in normal form (the reading's `normalizedQuery`). */
export function cacheFormOfNormal(normal: string): string {
  return normal
    .replace(/[。、「」“”‘’～]/g, (character) => PUNCTUATION[character] ?? character)
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/ ?([,.;:!?]) ?/g, '$1')
    .trim();
}

/** The cache-key form of a text that is not the message (a task's message). */
export function cacheForm(text: string): string {
  return cacheFormOfNormal(text.normalize('NFKC'));
}

/**
 * The normal form (NFKC) of a text that is not the message (a task's message), where the response
 * cache reads its residual qualifiers (`graph/caches/cache-scope.ts`); the answer cache reads the
 * message's own (`MessageReading.normal`).
 */
export function taskNormalForm(text: string): string {
  return text.normalize('NFKC');
}
