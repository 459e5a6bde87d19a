/**
 * One masking of personal data (docs/api.md#personal-data) for every place that keeps or
 * shows text: log lines, the stored transcript, escalation cards and the
 * memory blocks of prompts. Built-in kinds: Chinese mobile numbers, 18-digit
 * ID-card numbers with a valid checksum, Luhn-valid bank card numbers and
 * e-mail addresses, masked `138****5678` style (the ends stay readable so a
 * person can still tell two numbers apart). Registry `supervisor.pii_patterns`
 * add kinds masked the same way (`M2*****22`: a few characters kept at each
 * end of a long match, stars between; a short match is all stars). Sub-agents
 * are not affected: they receive the real values of the keys they declare.
 *
 * The built-in patterns are fixed and linear; registry patterns run on the
 * linear-time engine (`src/util/safe-pattern.ts`).
 */
import { LRUCache } from 'lru-cache';
import { maskPersonalData, maskPersonalNumber, personalValueSpans, personalValueTail } from './mask-personal-data.js';
import { type KeepWhole, replaceFolded, spansFolded } from '../text/index.js';
import type { PiiPattern } from '../registry/index.js';
import { countCost } from '../util/index.js';

/** Masks personal data in text and in any JSON-like value. */
export interface PiiMasker {
  /** `text` with every recognised value masked. */
  mask(text: string): string;
  /**
   * A deep copy of `value` with every string masked (object keys included)
   * and every number that is a personal value replaced by its masked text
   * (`maskPersonalNumber`; registry patterns apply to text only).
   */
  maskDeep<T>(value: T): T;
  /**
   * `mask` for a text that never comes again (a turn's serialised events): the
   * same result, without remembering the text (remembering it would only push
   * out texts that do repeat).
   */
  maskFresh?(text: string): string;
}

/**
 * How much masked text a masker remembers. A turn masks the same strings many
 * times over (the session's memory in every checkpoint, object keys, events
 * stored and logged); each is masked once while it is remembered. Strings of
 * {@link MAX_REMEMBERED_CHARS} or more are masked every time.
 */
const REMEMBERED_CHARS = 2_000_000;
const MAX_REMEMBERED_CHARS = 8192;

/** Creates a masker for the built-in kinds plus the registry's extra patterns. */
export function createPiiMasker(extraPatterns: readonly PiiPattern[] = []): PiiMasker {
  const maskOnce = (text: string): string => {
    countCost('masking passes');
    countCost('masking chars', text.length);
    let result = maskPersonalData(text);
    // Registry patterns read the NFKC form too, as the built-in kinds do.
    for (const extra of extraPatterns) {
      result = replaceFolded(result, (normal) => extra.pattern.findAll(normal).map((match) => ({ start: match.start, end: match.end, replacement: maskPatternMatch(match.text) })));
    }
    return result;
  };
  // Keyed by the text as given: it lives in this process's memory only, beside the values it came from.
  const remembered = new LRUCache<string, string>({ maxSize: REMEMBERED_CHARS, sizeCalculation: (value, key) => value.length + key.length || 1 });
  const maskFresh = (text: string): string => {
    if (typeof text !== 'string' || text.length === 0) return text;
    countCost('mask calls');
    if (extraPatterns.length === 0 && cannotHoldBuiltInKind(text)) return text;
    return maskOnce(text);
  };
  const mask = (text: string): string => {
    if (typeof text !== 'string' || text.length === 0) return text;
    countCost('mask calls');
    // Most strings masked are keys and short words: plain ASCII with no `@` and under 11 digits holds no built-in kind.
    if (extraPatterns.length === 0 && cannotHoldBuiltInKind(text)) return text;
    if (text.length >= MAX_REMEMBERED_CHARS) return maskOnce(text);
    countCost('masking cache lookups');
    const known = remembered.get(text);
    if (known !== undefined) return known;
    const result = maskOnce(text);
    remembered.set(text, result);
    return result;
  };
  const maskDeep = <T>(value: T): T => {
    const visit = (item: unknown, depth: number): unknown => {
      if (typeof item === 'string') return mask(item);
      if (typeof item === 'number') return maskPersonalNumber(item);
      if (depth > 64 || item === null || typeof item !== 'object') return item;
      if (Array.isArray(item)) return item.map((child) => visit(child, depth + 1));
      if (item instanceof Date) return item;
      if (item instanceof Error) return { type: item.name, message: mask(item.message), ...(item.stack ? { stack: mask(item.stack) } : {}) };
      // One pass over the own enumerable keys, as Object.fromEntries(Object.entries(…)) would copy them, without the pairs.
      const copy: Record<string, unknown> = {};
      const record = item as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const masked = mask(key);
        const child = visit(record[key], depth + 1);
        if (masked === '__proto__') Object.defineProperty(copy, masked, { value: child, enumerable: true, writable: true, configurable: true });
        else copy[masked] = child;
      }
      return copy;
    };
    return visit(value, 0) as T;
  };
  return { mask, maskDeep, maskFresh };
}

/**
 * True when `text` is ASCII (NFKC leaves it as it is) without an `@` and
 * without a run of 11 digits (a single space or dash allowed between two of
 * them, as the number kinds allow): no built-in kind can match it. Checked
 * before the memory of masked texts, which costs a hash of the text and a
 * lookup, and would otherwise keep every timestamp and id a record holds.
 */
function cannotHoldBuiltInKind(text: string): boolean {
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80 || code === 0x40) return false;
    if (code >= 0x30 && code <= 0x39) {
      if (++run >= 11) return false;
    } else if (!(run > 0 && (code === 0x20 || code === 0x2d) && isDigitCode(text.charCodeAt(index + 1)))) {
      run = 0;
    }
  }
  return true;
}

function isDigitCode(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * What a stream of user-facing text must keep whole so that this masking,
 * which runs on each stored piece, sees every value in one piece: the built-in
 * kinds, and each registry pattern's matches. A registry pattern's growing
 * tail is taken as the trailing run of value characters (letters, digits,
 * `. _ % + @ -`), which covers member numbers and codes of that shape.
 */
export function personalValuesKeptWhole(extraPatterns: readonly PiiPattern[] = []): KeepWhole[] {
  return [
    { spans: personalValueSpans, tail: personalValueTail },
    ...extraPatterns.map((extra): KeepWhole => ({ spans: (text) => spansFolded(text, (normal) => extra.pattern.findAll(normal)), tail: personalValueTail })),
  ];
}

/**
 * A registry pattern's match masked like the built-in kinds: up to a quarter
 * of it kept at each end (at most 3 characters in front, 4 behind, as in
 * `138****5678`), at least half of it and never fewer than 4 characters
 * starred; a match under 6 characters is all stars.
 */
export function maskPatternMatch(match: string): string {
  const characters = [...match];
  if (characters.length === 0) return match;
  const quarter = characters.length >= 6 ? Math.floor(characters.length / 4) : 0;
  const head = Math.min(3, quarter);
  const tail = Math.min(4, quarter);
  const starred = Math.max(4, characters.length - head - tail);
  return `${characters.slice(0, head).join('')}${'*'.repeat(starred)}${characters.slice(characters.length - tail).join('')}`;
}
