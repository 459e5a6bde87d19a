/**
 * Secrets in disguise. A model or a sub-agent can change how a secret is
 * written without changing what it is good for: its case, invisible
 * characters (zero-width spaces and joiners, the word joiner, a byte order
 * mark, a soft hyphen: Unicode format and default-ignorable characters) or
 * white space put inside it, full-width letters, percent-encoding of some or
 * all of its characters, and the common encodings of its bytes: hex (either
 * case) and base64 or base64url, whole or as part of a longer encoded text
 * (where the secret starts at byte 0, 1 or 2 of a 3-byte group, the characters
 * that hold only the secret's bits are the same whatever surrounds it).
 *
 * So every secret of at least {@link MIN_DISGUISED_LENGTH} characters is
 * known in all those forms, computed once when the guard is built, and looked
 * for in the text's *reading form*: invisible characters and white space
 * dropped, `%XX` of a printable ASCII character decoded, each character in its
 * NFKC form and lower-cased. One multi-pattern automaton (`aho-corasick.ts`)
 * finds every form in one pass, so the cost is linear in the text whatever the
 * number of secrets. What is found is mapped back to the text as written; the
 * span replaced covers everything the disguise put inside.
 *
 * Shorter secrets are only matched as written (by the scrubber's literal
 * terms): case-folded, stripped of spaces or encoded, a 4–7 character value
 * would match ordinary words and numbers (decision 0043).
 */
import { createLiteralAutomaton, type LiteralAutomaton } from './aho-corasick.js';

/** Shortest secret looked for in disguise (decision 0043). */
export const MIN_DISGUISED_LENGTH = 8;

/** Finds disguised forms of a fixed set of secrets. */
export interface DisguisedSecrets {
  /** Length of the longest form, in characters of the reading form. */
  readonly longest: number;
  /** Where a form of a secret stands in `text`, as written: sorted, non-overlapping `[start, end)` stretches. */
  spans(text: string): { start: number; end: number }[];
  /** Length of the longest tail of `text` that could still grow into a form (a stream holds it back). */
  tail(text: string): number;
  /**
   * For a text that follows others (`before`: the reading form of what went before it, as `follows` gave
   * it): how much of `text`, as written, ends a form begun in `before` (0 when none), and the reading form
   * the next text follows; `open` the length (reading form) of its end that could still grow into a form
   * (what went before included), and `openAt` where in `text` as written that end starts (-1 when it starts before `text`).
   */
  follows(before: string, text: string): { covered: number; before: string; open: number; openAt: number };
}

/** A text's reading form, with the stretch of the written text each of its characters came from. */
export interface ReadingForm {
  /** Its characters (UTF-16 code units); only the first `length` count. */
  codes: Uint16Array;
  length: number;
  /** Where in the written text each character's stretch starts and ends. */
  starts: Int32Array;
  ends: Int32Array;
}

/** Characters that change nothing a reader or a parser sees: format characters and other default-ignorable ones. */
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
const SPACE = /^\s$/u;
/** Reading forms of single non-ASCII characters, kept once asked for. */
const READING_CHARS = new Map<string, string>();

/** True for an invisible character (format or default-ignorable code point): U+200B..U+200D, U+2060, U+FEFF, U+00AD… */
export function isInvisibleCharacter(char: string): boolean {
  return INVISIBLE.test(char);
}

function readingChar(char: string): string {
  let reading = READING_CHARS.get(char);
  if (reading === undefined) {
    if (INVISIBLE.test(char) || SPACE.test(char)) reading = '';
    else {
      const normal = char.normalize('NFKC');
      const single = normal.length >= 1 && normal.length <= 2 && [...normal].length === 1 ? normal : char;
      const lower = single.toLowerCase();
      reading = lower.length === single.length ? lower : single;
    }
    if (READING_CHARS.size < 65_536) READING_CHARS.set(char, reading);
  }
  return reading;
}

/** The reading form of `text` (see the file header). */
export function readingForm(text: string): ReadingForm {
  const codes = new Uint16Array(text.length);
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let length = 0;
  for (let index = 0; index < text.length; ) {
    const code = text.charCodeAt(index);
    if (code < 0x80) {
      let kept = code;
      let width = 1;
      if (code === 0x25 && index + 2 < text.length) {
        const decoded = hexValue(text.charCodeAt(index + 1)) * 16 + hexValue(text.charCodeAt(index + 2));
        if (decoded > 0x20 && decoded < 0x7f) {
          kept = decoded;
          width = 3;
        }
      }
      if (kept !== 0x20 && (kept < 0x09 || kept > 0x0d)) {
        codes[length] = kept >= 0x41 && kept <= 0x5a ? kept + 32 : kept;
        starts[length] = index;
        ends[length] = index + width;
        length += 1;
      }
      index += width;
      continue;
    }
    // CJK ideographs and kana read as they are written (no case, no compatibility form).
    if ((code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x4dbf)) {
      codes[length] = code;
      starts[length] = index;
      ends[length] = index + 1;
      length += 1;
      index += 1;
      continue;
    }
    const width = code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
    const reading = readingChar(width === 1 ? text[index]! : text.slice(index, index + 2));
    for (let unit = 0; unit < reading.length && length < codes.length; unit += 1) {
      codes[length] = reading.charCodeAt(unit);
      starts[length] = index;
      ends[length] = index + width;
      length += 1;
    }
    index += width;
  }
  return { codes, length, starts, ends };
}

/** The text of a reading form. */
export function readingText(form: ReadingForm): string {
  let out = '';
  for (let start = 0; start < form.length; start += 8192) out += String.fromCharCode(...form.codes.subarray(start, Math.min(form.length, start + 8192)));
  return out;
}

/** The value of a hex digit's code, or a large number (so a sum with it is never a character) for any other. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return 0x10000;
}

/** The base64 characters that hold only bits of `bytes` when it starts at byte `offset` (0, 1 or 2) of a longer encoded text. */
function base64Inner(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const first = Math.ceil((offset * 8) / 6);
  const last = Math.floor(((offset + bytes.length) * 8) / 6);
  return encoded.slice(first, last);
}

/** Every form of one secret, in reading form (lower case): as written, hex, base64 and base64url at the three alignments. */
export function disguisedForms(secret: string): string[] {
  const reading = readingText(readingForm(secret));
  if (reading.length < MIN_DISGUISED_LENGTH) return [];
  const forms = new Set<string>([reading]);
  const bytes = Buffer.from(secret.trim(), 'utf8');
  forms.add(bytes.toString('hex'));
  for (const offset of [0, 1, 2]) {
    const inner = base64Inner(bytes, offset);
    forms.add(inner.toLowerCase());
    forms.add(inner.replace(/\+/g, '-').replace(/\//g, '_').toLowerCase());
  }
  return [...forms].filter((form) => form.length >= MIN_DISGUISED_LENGTH);
}

/**
 * A Basic credential's decoded form (`dXNlcjpwYXNzd29yZA==` → `user:password`):
 * an agent can leak what it stands for as easily as the value itself.
 */
export function decodedCredential(value: string): string | undefined {
  if (!/^[A-Za-z0-9+/]{8,}={0,2}$/.test(value) || value.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('latin1');
  return /^[\x21-\x7e]{8,}$/.test(decoded) ? decoded : undefined;
}

/** Builds the finder of every disguised form of `secrets` (built once per registry snapshot). */
export function createDisguisedSecrets(secrets: Iterable<string>): DisguisedSecrets {
  const forms = new Set<string>();
  for (const secret of innermostSecrets(secrets)) for (const form of disguisedForms(secret)) forms.add(form);
  const automaton: LiteralAutomaton = createLiteralAutomaton(forms);
  // A stream asks for the stretches and the open tail of the same text in turn: both come from one pass, kept for the last text.
  let lastText: string | undefined;
  let last = { spans: [] as { start: number; end: number }[], tail: 0 };
  const read = (text: string) => {
    if (text === lastText) return last;
    const reading = readingForm(text);
    const found: { start: number; end: number }[] = [];
    const open = automaton.scan(reading.codes, reading.length, (start, end) => found.push({ start: reading.starts[start]!, end: reading.ends[end - 1]! }));
    // A `%X` (or a `%` not after a digit, as in "50%") at the very end may still become one decoded character.
    const partial = /%[0-9A-Fa-f]$|(?<![0-9])%$/.exec(text)?.[0].length ?? 0;
    const fromForm = open > 0 ? text.length - reading.starts[reading.length - open]! : 0;
    lastText = text;
    last = { spans: mergeSpans(found), tail: Math.max(fromForm, partial) };
    return last;
  };
  const usable = (text: string) => automaton.longest > 0 && typeof text === 'string' && text.length > 0;
  const follows = (before: string, text: string) => {
    if (!usable(text)) return { covered: 0, before, open: 0, openAt: typeof text === 'string' ? text.length : 0 };
    const reading = readingForm(text);
    const codes = new Uint16Array(before.length + reading.length);
    for (let index = 0; index < before.length; index += 1) codes[index] = before.charCodeAt(index);
    codes.set(reading.codes.subarray(0, reading.length), before.length);
    let covered = 0;
    const open = automaton.scan(codes, codes.length, (start, end) => {
      if (start < before.length && end > before.length) covered = Math.max(covered, reading.ends[end - before.length - 1]!);
    });
    const keep = Math.max(0, automaton.longest - 1);
    const tail = readingText({ ...reading, codes: reading.codes.subarray(Math.max(0, reading.length - keep)), length: Math.min(keep, reading.length) });
    const openAt = open === 0 ? text.length : open > reading.length ? -1 : reading.starts[reading.length - open]!;
    return { covered, before: keep === 0 ? '' : (before + tail).slice(-keep), open, openAt };
  };
  return {
    longest: automaton.longest,
    spans: (text) => (usable(text) ? read(text).spans : []),
    tail: (text) => (usable(text) ? read(text).tail : 0),
    follows,
  };
}

/**
 * The secrets long enough to be looked for in disguise, with a Basic
 * credential's decoded form, less those that hold another one: a form of the
 * inner one is found inside every form of the outer one (base64 and hex
 * included, as the inner one's three alignments cover any place it can start),
 * so the outer one's forms add nothing but size (`Bearer sk-1` holds `sk-1`).
 */
function innermostSecrets(secrets: Iterable<string>): string[] {
  const all = new Map<string, string>();
  for (const secret of secrets) {
    for (const candidate of [secret, decodedCredential(secret)]) {
      const written = candidate?.trim();
      if (written === undefined || all.has(written)) continue;
      const reading = readingText(readingForm(written));
      if (reading.length >= MIN_DISGUISED_LENGTH) all.set(written, reading);
    }
  }
  const readings = new Set(all.values());
  return [...all].filter(([, reading]) => ![...readings].some((other) => other !== reading && reading.includes(other))).map(([written]) => written);
}

/** Sorted stretches with overlapping ones joined (a secret is never left partly shown). */
function mergeSpans(spans: { start: number; end: number }[]): { start: number; end: number }[] {
  if (spans.length <= 1) return spans;
  const sorted = [...spans].sort((left, right) => left.start - right.start || right.end - left.end);
  const merged: { start: number; end: number }[] = [{ ...sorted[0]! }];
  for (const span of sorted.slice(1)) {
    const last = merged.at(-1)!;
    if (span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}
