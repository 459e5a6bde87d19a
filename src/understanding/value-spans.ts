/**
 * Where a text states a value: the spans the value sources record (a value
 * reaches a sub-agent only when the user said it, `graph/value-source.ts`).
 * Offsets are into the text's normal form as typed (NFKC, not trimmed), the
 * form a stored turn's span is read back from.
 *
 * The message's values are looked up in its reading: the turn asks where the
 * message states each input of each task, and the reading answers from one
 * table per message — its lower-cased normal form, and what each key's extract
 * rule and the date reader find in it, each computed the first time it is
 * asked for (keyed by the registry's extract rule and the turn's date) and
 * kept with the reading for the rest of the turn. The reading itself stays
 * frozen: the table lives beside it, not in it, and goes with it. A stored
 * turn's words (not the message) are read here on each call.
 */
import { extractOne, findDates, type DateHit, type ExtractSpec, type KeyOutcome } from '../text/index.js';
import type { MessageReading } from './query-reading.js';

/** Where a value is stated (offsets into the normal form as typed). */
export interface ValueSpan {
  readonly start: number;
  readonly end: number;
}

/** The form two values are compared in: NFKC, lower case. */
export function valueForm(value: string | number): string {
  return String(value).normalize('NFKC').toLowerCase();
}

/** What a text yields to the span search, each part computed when first asked for. */
interface ValueTable {
  readonly plain: string;
  readonly lower: string;
  outcome(spec: ExtractSpec, now: Date): KeyOutcome;
  dates(now: Date): readonly DateHit[];
  numbers(): readonly { value: number; start: number; end: number }[];
}

const tables = new WeakMap<MessageReading, ValueTable>();

/** The message's table, made once per reading. */
function tableOfMessage(message: MessageReading): ValueTable {
  let table = tables.get(message);
  if (!table) {
    table = memoised(message.normal);
    tables.set(message, table);
  }
  return table;
}

function memoised(plain: string): ValueTable {
  const lower = plain.toLowerCase();
  const outcomes = new Map<ExtractSpec, Map<number, KeyOutcome>>();
  const dates = new Map<number, DateHit[]>();
  let numbers: { value: number; start: number; end: number }[] | undefined;
  return {
    plain,
    lower,
    outcome(spec, now) {
      let byDay = outcomes.get(spec);
      if (!byDay) outcomes.set(spec, (byDay = new Map()));
      if (!byDay.has(now.getTime())) byDay.set(now.getTime(), extractOne(plain, spec, now));
      return byDay.get(now.getTime())!;
    },
    dates(now) {
      if (!dates.has(now.getTime())) dates.set(now.getTime(), findDates(plain, now));
      return dates.get(now.getTime())!;
    },
    numbers() {
      numbers ??= [...plain.matchAll(/-?\d+(?:\.\d+)?/g)].map((match) => ({ value: Number(match[0]), start: match.index, end: match.index + match[0].length }));
      return numbers;
    },
  };
}

/** A stored text's table: nothing is kept, each part is computed when asked for. */
function tableOfText(text: string): ValueTable {
  const plain = text.normalize('NFKC');
  return {
    plain,
    lower: plain.toLowerCase(),
    outcome: (spec, now) => extractOne(plain, spec, now),
    dates: (now) => findDates(plain, now),
    numbers: () => [...plain.matchAll(/-?\d+(?:\.\d+)?/g)].map((match) => ({ value: Number(match[0]), start: match.index, end: match.index + match[0].length })),
  };
}

/**
 * Where `text` (a stored turn's words, or the message's reading) states
 * `value`: as written, or as what the key's extract rule (or the date reader)
 * reads from it; undefined when it does not.
 */
export function spanOfValue(text: string | MessageReading, value: string | number, spec: ExtractSpec | undefined, now: Date): ValueSpan | undefined {
  const table = typeof text === 'string' ? tableOfText(text) : tableOfMessage(text);
  const wanted = valueForm(value).trim();
  if (wanted.length === 0) return undefined;
  const at = table.lower.indexOf(wanted);
  if (at >= 0) return { start: at, end: at + wanted.length };
  if (spec) {
    const outcome = table.outcome(spec, now);
    if (outcome && 'value' in outcome && valueForm(outcome.value) === wanted) {
      const rawAt = table.plain.indexOf(outcome.raw);
      return rawAt >= 0 ? { start: rawAt, end: rawAt + outcome.raw.length } : { start: 0, end: table.plain.length };
    }
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(wanted)) {
    const hit = table.dates(now).find((candidate) => candidate.value === wanted);
    if (hit) return { start: hit.start, end: hit.end };
  }
  if (typeof value === 'number' || /^-?\d+(?:\.\d+)?$/.test(wanted)) {
    for (const match of table.numbers()) if (match.value === Number(wanted)) return { start: match.start, end: match.end };
  }
  return undefined;
}

/**
 * The words a span points at: in the message's reading, or in a stored turn's
 * words (normalised here, the form the span was found in).
 */
export function spannedWords(text: string | MessageReading, span: ValueSpan): string {
  return (typeof text === 'string' ? text.normalize('NFKC') : text.normal).slice(span.start, span.end);
}
