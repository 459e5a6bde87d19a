/**
 * Offline extraction of an agent's required semantic keys from text, one
 * `ExtractSpec` at a time (docs/api.md#registry-file `extract`).
 *
 * Each key ends up in exactly one of three states: a normalised value, an
 * invalid entry (the user gave something for it that fails the check, with the
 * reason), or absent (missing). When the text holds several candidates for a
 * key, the latest mention wins: a rewritten query appends the user's new
 * reply to the earlier request ("帮我订北京的酒店，上海"), so the later value is the
 * correction. Text is NFKC-normalised first (full-width digits and letters
 * become ASCII).
 *
 * - `enum`: longest listed value found (ASCII case-insensitive, whole words for
 *   Latin), returned as written in the spec. When none is, a name given in a
 *   place position that the enum does not list ("订南京的酒店") → invalid (see
 *   `off-list-value.ts`).
 * - `pattern`: capture group 1 when the pattern has one and it matched, else
 *   the whole match, trimmed.
 * - `number`: Arabic numbers, or simple Chinese numerals followed by a
 *   measure word (两晚, 三个人) or standing alone; digits that belong to a
 *   date, a time, a phone number or an email are skipped. Out of `min`/`max` →
 *   invalid.
 * - `phone`: Chinese mobile `1[3-9]` + 9 digits (spaces/dashes and +86
 *   allowed). A digit run that looks like a mobile number but is not one
 *   (10 or 12 digits starting with 1, 11 digits starting 10/11/12, or any 5–15
 *   digits right after 手机/电话/phone/tel) → invalid.
 * - `email`: a token with `@` that passes the address check; a token with `@`
 *   that fails it → invalid.
 * - `date`: see `date-extractor.ts`.
 * - `text`: the whole trimmed text.
 */
import { LRUCache } from 'lru-cache';
import type { ExtractSpec, SemanticKeySpec } from './key-specs.js';
import type { SafePattern } from '../util/index.js';
import { CHINESE_NUMERAL_CHARACTERS, parseChineseNumber } from './chinese-numerals.js';
import { findDates } from './date-extractor.js';
import { findOffListValue } from './off-list-value.js';
import { createPhraseMatcher, type PhraseMatcher } from './phrase-matcher.js';

/** Result of extracting one agent's semantic keys from text. */
export interface ExtractionResult {
  /** key -> normalised value (dates as YYYY-MM-DD, numbers as number). */
  values: Record<string, string | number>;
  /** Keys whose value was present but failed extraction/validation. */
  invalid: { key: string; raw: string; reason: string }[];
}

export type KeyExtractor = (text: string, specs: readonly SemanticKeySpec[], today: Date) => ExtractionResult;

/**
 * What one spec yields from a text: a value (with the text it came from), an
 * invalid raw value with its reason, or nothing.
 */
export type KeyOutcome = { value: string | number; raw: string } | { raw: string; reason: string } | null;

interface Span {
  start: number;
  end: number;
}

const EMAIL = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}$/;
const CN_MOBILE = /^1[3-9]\d{9}$/;

/** Whether `value` is an email address as extraction accepts it (the one rule for both). */
export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value) && !value.includes('..');
}

/** Whether `value` is a Chinese mobile number in its normalised form (11 digits). */
export function isCnMobile(value: string): boolean {
  return CN_MOBILE.test(value);
}
const MEASURE_WORDS = '个位晚间天张人次件本台份夜名只条岁辆家层楼元块斤箱瓶杯双套周月年号';
const CURRENCY_BEFORE = /(?:[$¥￥€£]|\b(?:rmb|usd|cny|eur)\s*)$/i;
const CURRENCY_AFTER = /^\s*(?:元|块|美元|欧元|英镑|人民币|(?:dollars?|bucks|yuan|rmb|usd|cny|euros?|pounds?)\b)/i;

/** A number key that asks for an amount of money (by its name or description). */
function isMoneyKey(spec: SemanticKeySpec): boolean {
  const words = [spec.key, spec.description, ...Object.values(spec.descriptions ?? {})].join(' ');
  return /amount|price|cost|fee|money|budget|salary|payment|refund|金额|价|费|钱|元|款|预算/i.test(words);
}

/** Whether the number found at `entry` is an amount of money (a currency sign before it or a currency word after it). */
function isMoney(text: string, entry: { start: number; raw: string }): boolean {
  const end = entry.start + entry.raw.length;
  return CURRENCY_BEFORE.test(text.slice(Math.max(0, entry.start - 4), entry.start)) || CURRENCY_AFTER.test(text.slice(end, end + 10));
}

/** Words that make the digits after them an identifier (an order, invoice or card number), not a quantity. */
const IDENTIFIER_LABEL = /(?:号码?|编号|单号|卡号|账号|工号|\bid|\bno\.?|#|\bnumber|\bcode)\s*(?:是|为|[:：])?\s*$/i;
const TIME_EXPRESSION = /\d{1,2}\s*(?:[:：]\s*\d{2}|点|时|am\b|pm\b)/gi;

/** Extracts every spec from the text (the `KeyExtractor` of the offline path). */
export const extractKeys: KeyExtractor = (text, specs, today) => {
  const result: ExtractionResult = { values: {}, invalid: [] };
  const normalized = typeof text === 'string' ? text.normalize('NFKC') : '';
  // A number key reads the text less the values the card's other keys took ("120 元到卡号 6222…": the card
  // number is not the amount), so those are read first; results keep the specs' order.
  const outcomes = new Map<SemanticKeySpec, KeyOutcome>();
  for (const spec of specs) if (spec.extract.type !== 'number') outcomes.set(spec, extractOne(normalized, spec.extract, today));
  const taken = [...outcomes.values()].flatMap((outcome) => (outcome && 'value' in outcome && outcome.raw.length > 0 ? [outcome.raw] : []));
  const forNumbers = taken.reduce((rest, raw) => rest.split(raw).join(' '.repeat(raw.length)), normalized);
  for (const spec of specs) {
    if (spec.extract.type !== 'number') continue;
    outcomes.set(spec, isMoneyKey(spec) ? extractNumber(forNumbers, today, spec.extract.min, spec.extract.max, true) : extractOne(forNumbers, spec.extract, today));
  }
  // A value one key took is not an off-list value of another ("send it to Main Street Pharmacy" names the pharmacy, not a medication).
  const takenBy = new Map<SemanticKeySpec, string>();
  for (const [spec, outcome] of outcomes) if (outcome && 'value' in outcome && outcome.raw.trim().length > 0) takenBy.set(spec, outcome.raw.trim().toLowerCase());
  const takenElsewhere = (spec: SemanticKeySpec, raw: string) =>
    [...takenBy].some(([other, taken]) => other !== spec && (taken.includes(raw.trim().toLowerCase()) || raw.toLowerCase().includes(taken)));
  for (const spec of specs) {
    const outcome = outcomes.get(spec) ?? null;
    if (outcome !== null && !('value' in outcome) && outcome.raw.trim().length > 0 && takenElsewhere(spec, outcome.raw)) continue;
    if (outcome === null) continue;
    if ('value' in outcome) result.values[spec.key] = outcome.value;
    else result.invalid.push({ key: spec.key, raw: outcome.raw, reason: outcome.reason });
  }
  return result;
};

/** Extracts the required keys of one agent card from text. */
export function extractForAgent(text: string, card: { readonly requiredKeys: readonly SemanticKeySpec[] }, today: Date): ExtractionResult {
  return extractKeys(text, card.requiredKeys, today);
}

/** Keys of `specs` that are neither extracted nor invalid. */
export function missingKeys(result: ExtractionResult, specs: readonly SemanticKeySpec[]): SemanticKeySpec[] {
  const invalid = new Set(result.invalid.map((entry) => entry.key));
  return specs.filter((spec) => !(spec.key in result.values) && !invalid.has(spec.key));
}

/** Applies one extract spec to (already NFKC-normalised) text. */
export function extractOne(text: string, spec: ExtractSpec, today: Date): KeyOutcome {
  let bySpec = readings.get(spec);
  if (!bySpec) readings.set(spec, (bySpec = new LRUCache({ max: READINGS_PER_SPEC })));
  const key = `${today.getTime()}\u0000${text}`;
  const known = bySpec.get(key);
  if (known) return known.outcome;
  const outcome = readOne(text, spec, today);
  // Shared by every caller that asks again: nobody may change it.
  if (outcome) Object.freeze(outcome);
  bySpec.set(key, { outcome });
  return outcome;
}

/**
 * What {@link extractOne} read, by spec, then by "today" and text: one turn
 * reads the same clause for the same key several times over (recognition,
 * the attribute clauses, the plan, the values' sources: 64 readings in the
 * three-intent travel turn, 35 of them a text, key and day read before in
 * that turn), and a reading depends on nothing else. Kept per spec (a
 * registry snapshot's specs live as long as it), its latest texts only, in
 * this process's memory only.
 */
const readings = new WeakMap<ExtractSpec, LRUCache<string, { outcome: KeyOutcome }>>();
const READINGS_PER_SPEC = 128;

function readOne(text: string, spec: ExtractSpec, today: Date): KeyOutcome {
  switch (spec.type) {
    case 'enum':
      return extractEnum(text, spec.values, today);
    case 'pattern':
      return extractPattern(text, spec.matcher);
    case 'number':
      return extractNumber(text, today, spec.min, spec.max);
    case 'phone':
      return extractPhone(text);
    case 'email':
      return extractEmail(text);
    case 'date':
      return extractDate(text, today);
    case 'text': {
      const trimmed = text.trim();
      return trimmed.length > 0 ? { value: trimmed, raw: trimmed } : null;
    }
    default:
      return { raw: text.trim(), reason: `unsupported extract type "${(spec as { type?: unknown }).type}"` };
  }
}

/** The matchers of enum value lists, built once per list (a registry snapshot's specs hold their lists for its life). */
const enumMatchers = new WeakMap<readonly string[], PhraseMatcher<string>>();

/** The phrase matcher of an enum spec's values, each value its own payload. */
export function enumValueMatcher(values: readonly string[]): PhraseMatcher<string> {
  let matcher = enumMatchers.get(values);
  if (!matcher) enumMatchers.set(values, (matcher = createPhraseMatcher(values.map((value) => ({ phrase: value, payload: value })))));
  return matcher;
}

/** Words right before a value that rule it out ("not cardiology", "instead of Beijing", "不是年假"). */
const RULED_OUT_BEFORE = /(?:\b(?:not|instead of|rather than|except)\s+(?:the\s+|a\s+|an\s+)?|(?:(?<!是)不是|(?<!要)不要|别用|不用|别选|不选|除了)\s*)$/i;

/** Whether the value starting at `start` is one the user ruled out by the words just before it. */
export function isRuledOut(text: string, start: number): boolean {
  return RULED_OUT_BEFORE.test(text.slice(Math.max(0, start - 16), start));
}

function extractEnum(text: string, values: readonly string[], today: Date): KeyOutcome {
  const hits = enumValueMatcher(values).findAll(text);
  // A value ruled out is never the value; when every one named was ruled out, the key is not given.
  const meant = hits.filter((hit) => !isRuledOut(text, hit.start));
  const last = meant[meant.length - 1];
  if (last) return { value: last.payloads[0]!, raw: text.slice(last.start, last.end) };
  if (hits.length > 0) return null;
  const offList = findOffListValue(text, values, today);
  return offList ? { raw: offList.raw, reason: `"${offList.raw}" is not one of ${values.join(', ')}` } : null;
}

function extractPattern(text: string, matcher: SafePattern): KeyOutcome {
  let last: { value: string; raw: string } | undefined;
  for (const match of matcher.findAll(text)) {
    if (isRuledOut(text, match.start)) continue;
    const value = (match.groups.length > 0 && match.groups[0] !== null ? match.groups[0]! : match.text).trim();
    if (value.length > 0) last = { value, raw: match.text.trim() };
  }
  return last ?? null;
}

function extractDate(text: string, today: Date): KeyOutcome {
  const hits = findDates(text, today).filter((hit) => !isRuledOut(text, hit.start));
  const last = hits[hits.length - 1];
  if (!last) return null;
  return last.value ? { value: last.value, raw: last.raw } : { raw: last.raw, reason: last.reason ?? 'not a date' };
}

/** A Chinese mobile number as written (spaces or dashes between its groups, +86 before it); group 1 is the number. */
const MOBILE = /(?<![\d\w])(?:\+?86[\s-]?)?(1\d{2}(?:[\s-]?\d{4}){2})(?!\d)/g;
/** A run of characters an e-mail address is made of. */
const EMAIL_TOKEN = /[A-Za-z0-9._%+\-@]+/g;

function extractEmail(text: string): KeyOutcome {
  const tokens: string[] = [];
  for (const match of text.matchAll(EMAIL_TOKEN)) {
    const token = match[0].replace(/^[.\-]+|[.\-]+$/g, '');
    if (token.includes('@') && !isRuledOut(text, match.index)) tokens.push(token);
  }
  const valid = tokens.filter(isEmailAddress);
  if (valid.length > 0) return { value: valid[valid.length - 1]!, raw: valid[valid.length - 1]! };
  const last = tokens[tokens.length - 1];
  return last === undefined ? null : { raw: last, reason: `"${last}" is not a valid email address` };
}

function phoneCandidates(text: string): { spans: Span[]; valid: { value: string; raw: string } | undefined; invalid: string | undefined } {
  const spans: Span[] = [];
  let valid: { value: string; raw: string } | undefined;
  let invalid: string | undefined;
  for (const match of text.matchAll(MOBILE)) {
    const digits = match[1]!.replace(/[\s-]/g, '');
    spans.push({ start: match.index, end: match.index + match[0].length });
    if (isRuledOut(text, match.index)) continue;
    if (isCnMobile(digits)) valid = { value: digits, raw: match[0] };
    else invalid = digits;
  }
  for (const match of text.matchAll(/\d+/g)) {
    const digits = match[0];
    if (spans.some((span) => span.start <= match.index && match.index < span.end)) continue;
    const before = text.slice(Math.max(0, match.index - 8), match.index).toLowerCase();
    const labelled = /(?:手机|电话|号码|phone|mobile|tel)\D{0,4}$/.test(before) && digits.length >= 5 && digits.length <= 15;
    const nearMobile = digits.startsWith('1') && (digits.length === 10 || digits.length === 12);
    if (labelled || nearMobile) {
      invalid = digits;
      spans.push({ start: match.index, end: match.index + digits.length });
    }
  }
  return { spans, valid, invalid };
}

/** A value found in text and where it stands. */
export interface ValueAt {
  value: string;
  raw: string;
  start: number;
  end: number;
}

/** Every valid mobile number in `text`, left to right (what a phone key could read, ruled out or not). */
export function findPhones(text: string): ValueAt[] {
  const found: ValueAt[] = [];
  for (const match of text.matchAll(MOBILE)) {
    const digits = match[1]!.replace(/[\s-]/g, '');
    if (isCnMobile(digits)) found.push({ value: digits, raw: match[0], start: match.index, end: match.index + match[0].length });
  }
  return found;
}

/** Every valid e-mail address in `text`, left to right. */
export function findEmails(text: string): ValueAt[] {
  const found: ValueAt[] = [];
  for (const match of text.matchAll(EMAIL_TOKEN)) {
    const token = match[0].replace(/^[.\-]+/, '');
    const start = match.index + (match[0].length - token.length);
    const trimmed = token.replace(/[.\-]+$/, '');
    if (isEmailAddress(trimmed)) found.push({ value: trimmed, raw: trimmed, start, end: start + trimmed.length });
  }
  return found;
}

function extractPhone(text: string): KeyOutcome {
  const { valid, invalid } = phoneCandidates(text);
  if (valid) return valid;
  return invalid ? { raw: invalid, reason: `"${invalid}" is not a valid mobile number (11 digits starting with 13–19)` } : null;
}

function extractNumber(text: string, today: Date, min: number | undefined, max: number | undefined, preferMoney = false): KeyOutcome {
  const masked: Span[] = [
    ...findDates(text, today),
    ...[...text.matchAll(TIME_EXPRESSION)].map((match) => ({ start: match.index, end: match.index + match[0].length })),
    ...phoneCandidates(text).spans,
    ...[...text.matchAll(/[A-Za-z0-9._%+\-]*@[A-Za-z0-9.\-]*/g)].map((match) => ({ start: match.index, end: match.index + match[0].length })),

    // Numbers joined by a slash are a date or a fraction ("12/3"), not a count or an amount.
    ...[...text.matchAll(/\d+(?:\s*\/\s*\d+)+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length })),
  ];
  const free = (start: number, end: number) => !masked.some((span) => start < span.end && span.start < end);
  const found: { start: number; raw: string; value: number }[] = [];
  // Digits grouped by thousands ("1,000") are one number; 万 / 千 / k after one multiply it ("1万" = 10000, "2k" = 2000).
  for (const match of text.matchAll(/(?<![\w.\-])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d.]?\d)(?:\s*(万|千|[kK](?![A-Za-z])))?/g)) {
    const multiplier = match[1] === '万' ? 10000 : match[1] ? 1000 : 1;
    // Digits no number holds exactly (a card or account number) are never a number's value.
    const value = Number(match[0].replace(/,|\s*(?:万|千|[kK])$/g, '')) * multiplier;
    if (!Number.isFinite(value)) continue;
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER) continue;
    if (free(match.index, match.index + match[0].length)) found.push({ start: match.index, raw: match[0], value });
  }
  const chinese = new RegExp(`[${CHINESE_NUMERAL_CHARACTERS}]+(?=[${MEASURE_WORDS}])`, 'g');
  for (const match of text.matchAll(chinese)) {
    const value = parseChineseNumber(match[0]);
    if (value !== undefined && free(match.index, match.index + match[0].length)) found.push({ start: match.index, raw: match[0], value });
  }
  const whole = parseChineseNumber(text.trim());
  if (found.length === 0 && whole !== undefined) found.push({ start: 0, raw: text.trim(), value: whole });
  if (found.length === 0) return null;
  // Digits the user labelled as an identifier ("发票号12345678", "order no. 7788") are never the number; a long
  // bare run of digits is one only when no other number is there.
  const labelled = (entry: { start: number }) => IDENTIFIER_LABEL.test(text.slice(Math.max(0, entry.start - 12), entry.start));
  const unlabelled = found.filter((entry) => !labelled(entry));
  if (unlabelled.length === 0) return null;
  const short = unlabelled.filter((entry) => !/^\d{8,}$/.test(entry.raw));
  // An amount of money ("$45.50", "50元") is what a money key beside other numbers is asked for.
  const money = preferMoney ? short.filter((entry) => isMoney(text, entry)) : [];
  const last = (money.length > 0 ? money : short.length > 0 ? short : unlabelled).reduce((latest, entry) => (entry.start > latest.start ? entry : latest));
  if (min !== undefined && last.value < min) return { raw: last.raw, reason: `${last.value} is less than the minimum ${min}` };
  if (max !== undefined && last.value > max) return { raw: last.raw, reason: `${last.value} is more than the maximum ${max}` };
  return { value: last.value, raw: last.raw };
}
