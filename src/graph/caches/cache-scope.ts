/**
 * What a cached reply or answer is keyed on, and whether it may be shared
 * between users.
 *
 * A reply is shared only when every input is a value anyone could ask about:
 * an enum value, a date or a number of a declared key (a city, a day, a
 * count), or an optional input the agent's input_schema lists as an enum or
 * a date. Any other input (an order number, a phone, free text) may be the
 * user's own data, so the entry is kept per user. Inputs are compared in a
 * canonical JSON form (keys sorted), so their order never matters.
 *
 * Inputs are not the whole question (docs/api.md#conversation-rules, "Cache keys"): what the
 * extractor did not capture ("下个月", "这周末会下雨", "next month") would be
 * lost, and "广州下个月天气怎么样" answered with today's forecast. So a key
 * also holds the question's residual qualifiers: its words once the captured
 * values (and the date expressions that gave them), the agents' own keywords
 * and question fillers are taken out, and particles, question and politeness
 * words dropped (the offline matcher's function words); compared as a sorted
 * set of terms, so "北京明天天气怎么样" and "明天北京的天气如何？" still share
 * (both leave nothing) while "广州天气如何" and "广州这周末会下雨吗" do not.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { AgentCard } from '../../registry/index.js';
import { findDates } from '../../text/index.js';

/** Canonical JSON text of a value (object keys sorted at every level). */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** Short sha256 digest of a text (cache keys stay short whatever the inputs). */
export function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

const SHAREABLE_TYPES = new Set(['enum', 'date', 'number']);

/** True when the inputs may carry the user's own data (see the file header). */
export function isUserSpecific(card: AgentCard, inputs: Readonly<Record<string, unknown>>): boolean {
  const properties = (card.inputSchema?.properties ?? {}) as Record<string, { enum?: unknown; format?: unknown } | undefined>;
  for (const [key, value] of Object.entries(inputs)) {
    if (value === undefined || value === null) continue;
    const spec = card.requiredKeys.find((candidate) => candidate.key === key);
    if (spec) {
      if (!SHAREABLE_TYPES.has(spec.extract.type)) return true;
      continue;
    }
    const property = properties[key];
    const listed = Array.isArray(property?.enum) && property.enum.includes(value);
    const isDate = property?.format === 'date' && typeof value === 'string';
    if (!listed && !isDate) return true;
  }
  return false;
}

/** Ways of asking that add no qualifier (taken out before the rest is read). */
const QUESTION_FILLERS = [
  '怎么样', '怎样', '咋样', '如何', '好不好', '好吗', '情况', '查询', '查一下', '查查', '看一下', '看看', '帮我', '帮忙', '给我',
  '请问', '告诉我', '我想知道', '想知道', '一下', '麻烦', '的话', '会不会', '有没有', '是不是', '能不能', '会', "what's", 'whats', 'look up', 'find out', 'tell me', 'let me know',
];

/** Characters that end a Chinese run and carry no qualifier (particles, pronouns, politeness). */
const PARTICLES = new Set('的了吗呢吧啊呀嘛哦么我你您请帮把给是那，。！？、；：,.!?;:'.split(''));

/** English words that carry no qualifier. */
const STOP_WORDS = new Set(
  ('a an the in on at for of to me my i you your is are was be do does did what how will would could can please like ' +
    'there about and it its check show get weather').split(' '),
);

/**
 * The residual qualifiers of a question (see the file header), as a sorted
 * list of terms: the captured `values` (and the date expressions that gave
 * them), the cards' keywords and question fillers are taken out; a date
 * expression that gave no captured value stays as its date (so "明天" and
 * "tomorrow" are the same qualifier); the rest is cut at particles into
 * Chinese runs and English words. "" when nothing is left. `normal` is the
 * question in normal form: the message's (its reading's `normal`) or a task's
 * message (`taskNormalForm`); only the registry's keywords and examples, the
 * fillers and the captured values are normalised here.
 */
export function residualQualifiers(normal: string, cards: readonly AgentCard[], values: readonly unknown[], today: Date): string {
  const prepared = normal.toLowerCase();
  const blank = new Array<boolean>(prepared.length).fill(false);
  const cover = (start: number, end: number) => {
    for (let index = start; index < end; index += 1) blank[index] = true;
  };
  const coverAll = (phrase: string) => {
    const needle = phrase.normalize('NFKC').toLowerCase().trim();
    if (needle.length === 0) return;
    for (let at = prepared.indexOf(needle); at !== -1; at = prepared.indexOf(needle, at + needle.length)) cover(at, at + needle.length);
  };
  const captured = new Set(values.filter((value) => typeof value === 'string' || typeof value === 'number').map((value) => String(value).toLowerCase()));
  const terms = new Set<string>();
  for (const hit of findDates(prepared, today)) {
    if (!hit.value || !captured.has(hit.value)) terms.add(`date:${hit.value ?? hit.raw}`);
    cover(hit.start, hit.end);
  }
  for (const value of captured) coverAll(value);
  for (const card of cards) for (const keyword of card.keywords) coverAll(keyword);
  for (const filler of QUESTION_FILLERS) coverAll(filler);
  let run = '';
  const endRun = () => {
    if (run.length > 0 && !STOP_WORDS.has(run)) terms.add(run);
    run = '';
  };
  for (let index = 0; index < prepared.length; index += 1) {
    const character = prepared[index]!;
    const isWordCharacter = /[\p{Script=Han}a-z0-9']/u.test(character);
    if (blank[index] || PARTICLES.has(character) || !isWordCharacter) {
      endRun();
      continue;
    }
    // A change of script ends a run too ("5月份" is one run, "next月" two).
    if (run.length > 0 && /\p{Script=Han}/u.test(character) !== /\p{Script=Han}/u.test(run.at(-1)!)) endRun();
    run += character;
  }
  endRun();
  return [...terms].sort().join(',');
}

/** Characters and words that say when, how much or which one: a term holding one is always a qualifier. */
const VALUE_MARKERS_HAN = /[年月周日号天点时分秒早晚午夜今明昨前后这那本每最多少几第价]|星期|礼拜/u;
const VALUE_MARKERS_EN = new Set(
  ('today tonight tomorrow yesterday morning afternoon evening night noon day days week weeks weekend month months year years hour hours minute ' +
    'monday tuesday wednesday thursday friday saturday sunday next last this first second third most least highest lowest max min cheapest price').split(' '),
);

/**
 * Which residual terms (`residualQualifiers`) only restate the request in the
 * words of its own cards, and which qualify it. A term restates when the
 * examples of the plan's `cards` use it (the registry's own evidence that it
 * is a way of asking these agents: "要带伞" of "去西安要带伞吗"), it holds no
 * digit, no date, no word of when, how much or which one, and no value any
 * card of `snapshotValues` can take (a city named in an example is still a
 * city). Everything else qualifies ("下个月", "next month", "3点", "上海").
 * Two questions that differ only in restating terms ask the same thing when
 * their meanings agree (the answer cache's paraphrase look-up); qualifiers
 * must be the same.
 */
export function splitQualifiers(terms: string, cards: readonly AgentCard[], snapshotValues: ReadonlySet<string>): { qualifiers: string[]; restating: string[] } {
  const qualifiers: string[] = [];
  const restating: string[] = [];
  if (terms === '') return { qualifiers, restating };
  const examples = cards.flatMap((card) => card.examples).map((example) => example.normalize('NFKC').toLowerCase());
  const exampleWords = new Set(examples.flatMap((example) => example.match(/[a-z0-9']+/g) ?? []));
  for (const term of terms.split(',')) {
    const han = /\p{Script=Han}/u.test(term);
    const valueLike =
      term.startsWith('date:') ||
      /\d/.test(term) ||
      (han ? VALUE_MARKERS_HAN.test(term) : VALUE_MARKERS_EN.has(term)) ||
      [...snapshotValues].some((value) => term.includes(value) || (han && value.includes(term)));
    const used = han ? examples.some((example) => example.includes(term)) : exampleWords.has(term);
    (valueLike || !used ? qualifiers : restating).push(term);
  }
  return { qualifiers, restating };
}
