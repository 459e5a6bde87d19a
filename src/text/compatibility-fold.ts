/**
 * Matching on the NFKC form of a text while keeping the text as written.
 * Full-width digits and letters (`１３５`, `ｚｈａｎｇ＠…`), mathematical
 * digits and other compatibility forms are the same characters to a reader,
 * so a pattern that must recognise a value (a phone number, an e-mail
 * address) runs on the normalised form; what it finds is mapped back to the
 * written text, and only the found stretches are replaced there. Everything
 * else (full-width punctuation of Chinese text included) stays as it was.
 *
 * Each code point is normalised on its own, so every character of the
 * normalised form comes from exactly one written code point. Invisible
 * characters (format and default-ignorable code points: U+200B, U+2060,
 * U+FEFF, the soft hyphen…) have no normalised form: `zh\u200bang@…` is read
 * as `zhang@…`, and a value found is replaced with what was put inside it.
 */
import { isInvisibleCharacter } from './disguised-secrets.js';

/** A stretch `[start, end)` and what it becomes. */
export interface FoldedReplacement {
  start: number;
  end: number;
  replacement: string;
}

/** A text in its normalised form, with where each of its characters came from. */
export interface FoldedText {
  /** The NFKC form, code point by code point. */
  readonly text: string;
  /** The stretch `[start, end)` of the written text a stretch of the normalised one came from. */
  original(start: number, end: number): { start: number; end: number };
}

/**
 * The normalised form of `text`; `undefined` when it is the text itself
 * (nothing to map). Plain ASCII, CJK ideographs and kana are left as they are
 * by NFKC and skipped.
 */
export function foldCompatibility(text: string): FoldedText | undefined {
  // Most changed characters keep their length (full-width letters, digits and punctuation are one unit each
  // way): the two forms then line up character for character and need no map.
  let folded = '';
  let copied = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80 || (code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x4dbf)) continue;
    if (code >= 0xd800 && code <= 0xdfff) return mappedFold(text);
    const char = text[index]!;
    const normal = normalOf(char);
    if (normal === char) continue;
    if (normal.length !== 1) return mappedFold(text);
    folded += text.slice(copied, index) + normal;
    copied = index + 1;
  }
  if (copied === 0) return undefined;
  folded += text.slice(copied);
  return { text: folded, original: (start, end) => ({ start: Math.min(start, text.length), end: Math.max(0, end) }) };
}

/** NFKC of single code points, kept once asked for (a text repeats the same few: `，`, `。`, `？`). */
const NORMAL_FORMS = new Map<string, string>();
function normalOf(char: string): string {
  let normal = NORMAL_FORMS.get(char);
  if (normal === undefined) {
    // An invisible character (a zero-width space, a soft hyphen) inside a value does not make it another value.
    normal = isInvisibleCharacter(char) ? '' : char.normalize('NFKC');
    if (NORMAL_FORMS.size < 65_536) NORMAL_FORMS.set(char, normal);
  }
  return normal;
}

/** The normalised form with a map from each of its characters to the written code point it came from. */
function mappedFold(text: string): FoldedText | undefined {
  let folded = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let position = 0;
  for (const char of text) {
    const code = char.charCodeAt(0);
    const normal = code < 0x80 || (code >= 0x4e00 && code <= 0x9fff) ? char : normalOf(char);
    for (let index = 0; index < normal.length; index++) {
      starts.push(position);
      ends.push(position + char.length);
    }
    folded += normal;
    position += char.length;
  }
  if (folded === text) return undefined;
  return {
    text: folded,
    original: (start, end) => ({ start: start < starts.length ? starts[start]! : text.length, end: end > 0 ? ends[end - 1]! : 0 }),
  };
}

/**
 * `text` with the stretches `find` reports in its normalised form replaced,
 * each mapped back to the written text. A stretch whose replacement equals
 * what it matched (nothing to mask) keeps its written form. `find` must
 * report non-overlapping stretches, left to right. `folded` is the text's
 * fold when the caller already has it.
 */
export function replaceFolded(text: string, find: (normalised: string) => readonly FoldedReplacement[], folded = foldCompatibility(text)): string {
  const source = folded?.text ?? text;
  const found = find(source);
  if (found.length === 0) return text;
  let out = '';
  let position = 0;
  for (const item of found) {
    if (item.replacement === source.slice(item.start, item.end)) continue;
    const span = folded ? folded.original(item.start, item.end) : item;
    if (span.start < position) continue;
    out += text.slice(position, span.start) + item.replacement;
    position = span.end;
  }
  return out + text.slice(position);
}

/** The stretches `find` reports in the normalised form of `text`, as stretches of the written text. */
export function spansFolded(text: string, find: (normalised: string) => Iterable<{ start: number; end: number }>): { start: number; end: number }[] {
  const folded = foldCompatibility(text);
  if (!folded) return [...find(text)];
  return [...find(folded.text)].map((span) => folded.original(span.start, span.end));
}

/** Each match of a global `pattern` in `text`, with its replacement. */
export function replacementsOf(pattern: RegExp, text: string, replace: (match: string) => string): FoldedReplacement[] {
  return [...text.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length, replacement: replace(match[0]) }));
}
