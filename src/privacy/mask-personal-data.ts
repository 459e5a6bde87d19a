/**
 * The built-in kinds of `src/privacy/pii-masker.ts`, which adds the
 * registry's pii_patterns and is what logs, storage and cards go through.
 * Masks personal data in free text (docs/api.md#personal-data): Chinese mobile numbers,
 * checksum-valid 18-digit ID-card numbers, Luhn-valid bank card numbers and
 * e-mail addresses, in the `138****5678` style (head and tail kept, middle
 * starred) so a reader can still tell two values apart without learning them.
 *
 * Number runs are read whole (a 19-digit run is never masked as a mobile
 * number inside it); ID and card rules need their checksum, so order numbers
 * and dates stay readable.
 *
 * Values are recognised in the NFKC form of the text (full-width digits and
 * letters are the same value) and masked where they are written; the rest
 * of the text stays as written (`src/text/compatibility-fold.ts`).
 */
import { foldCompatibility, isInvisibleCharacter, replaceFolded, replacementsOf, spansFolded } from '../text/index.js';

/** An address starts where its run of local-part characters starts (which also keeps a long run linear to scan). */
const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** Digit runs (spaces or dashes allowed inside card numbers), or an ID number ending in X. */
const NUMBER_RUN = /(?<![0-9A-Za-z])(?:\d{17}[\dXx]|\d(?:[ -]?\d){10,22})(?![0-9A-Za-z])/g;
/** A character a personal value may hold: an e-mail address's (and so a number's), plus `X` of an ID number. */
const VALUE_CHAR = /[A-Za-z0-9._%+@-]/;
const DIGIT = /[0-9]/;
/** Longest personal value: an e-mail address has at most 254 characters. */
const LONGEST_VALUE = 254;
const CN_MOBILE = /^(?:\+?86)?1[3-9]\d{9}$/;
const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** True for an 18-character mainland ID number whose check character is right. */
export function isChineseIdNumber(value: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(value)) return false;
  const sum = ID_WEIGHTS.reduce((total, weight, index) => total + weight * Number(value[index]), 0);
  return ID_CHECK[sum % 11] === value[17]!.toUpperCase();
}

/** True for 13–19 digits that pass the Luhn check. */
export function isLuhnCardNumber(digits: string): boolean {
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function star(value: string, head: number, tail: number): string {
  return `${value.slice(0, head)}${'*'.repeat(Math.max(4, value.length - head - tail))}${value.slice(value.length - tail)}`;
}

function maskNumberRun(run: string): string {
  const digits = run.replace(/[ -]/g, '');
  if (CN_MOBILE.test(digits)) return star(digits, digits.length - 8, 4);
  if (digits.length === 18 && isChineseIdNumber(digits)) return star(digits, 6, 4);
  if (isLuhnCardNumber(digits)) return star(digits, 4, 4);
  return run;
}

/** The text with every mobile number, ID number, bank card number and e-mail address masked. */
export function maskPersonalData(text: string): string {
  const folded = foldCompatibility(text);
  if (!mayHoldPersonalValue(folded?.text ?? text)) return text;
  const addressesMasked = replaceFolded(text, (normal) => replacementsOf(EMAIL, normal, maskAddress), folded);
  return replaceFolded(addressesMasked, (normal) => replacementsOf(NUMBER_RUN, normal, maskNumberRun));
}

/** Whether a text (in its folded form) could hold an address (an `@`) or a number (11 digits or more in all). */
function mayHoldPersonalValue(folded: string): boolean {
  if (folded.includes('@')) return true;
  let digits = 0;
  for (let index = 0; index < folded.length; index++) {
    const code = folded.charCodeAt(index);
    if (code >= 0x30 && code <= 0x39 && ++digits >= 11) return true;
  }
  return false;
}

function maskAddress(address: string): string {
  const at = address.indexOf('@');
  const local = address.slice(0, at);
  return `${local.slice(0, Math.min(2, Math.max(1, local.length - 1)))}***${address.slice(at)}`;
}

/**
 * A personal value written as a JSON number (a sub-agent's `{"phone":
 * 13812345678}`, a model's inputs) as its masked text; any other number
 * unchanged. Recognised: an 11-digit Chinese mobile number; a Luhn-valid card
 * number of 15 to 19 digits; and any integer of 16 to 19 digits beyond exact
 * float precision (an ID or card number that lost its last digits is still an
 * identifier, never a quantity). 13- and 14-digit numbers are left alone even
 * when Luhn-valid: millisecond timestamps have 13 digits, and written as text
 * such cards are still masked.
 */
export function maskPersonalNumber(value: number): number | string {
  if (!Number.isInteger(value) || value <= 0 || value >= 1e20) return value;
  const digits = value.toFixed(0);
  if (CN_MOBILE.test(digits)) return star(digits, 3, 4);
  if (Number.isSafeInteger(value)) return digits.length >= 15 && isLuhnCardNumber(digits) ? star(digits, 4, 4) : value;
  return digits.length >= 16 && digits.length <= 19 ? star(digits, 4, 4) : value;
}

/** A deep copy of `value` with every string and personal number masked (object keys are kept). */
export function maskPersonalDataDeep<T>(value: T): T {
  if (typeof value === 'string') return maskPersonalData(value) as T;
  if (typeof value === 'number') return maskPersonalNumber(value) as T;
  if (Array.isArray(value)) return value.map((item) => maskPersonalDataDeep(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskPersonalDataDeep(item)])) as T;
  }
  return value;
}

/**
 * Where personal values stand in `text` (e-mail addresses and digit runs that
 * may be one): a stream never cuts through one, so the masking, which runs on
 * each stored piece, always sees a value whole.
 */
export function personalValueSpans(text: string): { start: number; end: number }[] {
  return spansFolded(text, (normal) => [EMAIL, NUMBER_RUN].flatMap((pattern) => [...normal.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }))));
}

/** The NFKC form of one character when it is one character (`１` → `1`); any other character as it is (`…` stays). */
function plainForm(char: string): string {
  const normal = char.normalize('NFKC');
  return normal.length === 1 ? normal : char;
}

/**
 * Length of the tail of `text` that could still grow into a personal value: the
 * trailing run of characters an e-mail address or a number is written with
 * (letters, digits, `. _ % + @ -`, and a space between digits, or after a
 * digit at the very end, as card numbers are written), up to the longest a
 * value can be. A stream holds this much back until it knows how it ends.
 */
export function personalValueTail(text: string): number {
  let start = text.length;
  while (start > 0 && text.length - start < LONGEST_VALUE) {
    const char = plainForm(text[start - 1]!);
    // An invisible character inside a value is part of it (the masking reads past it).
    if (isInvisibleCharacter(char)) {
      start -= 1;
      continue;
    }
    const joinsDigits = char === ' ' && start >= 2 && DIGIT.test(plainForm(text[start - 2]!)) && (start === text.length || DIGIT.test(plainForm(text[start]!)));
    if (!VALUE_CHAR.test(char) && !joinsDigits) break;
    start -= 1;
  }
  return text.length - start;
}
