/**
 * Whether a text a model wrote states a value its sources do not give: a date
 * (compared as the day it names, so "明天" and "2026-11-24" are the same) or a
 * number. A model's wording is never evidence of a value (contract "Never a
 * wrong value"); callers use this to keep such a text away from sub-agents and
 * from the prompts that speak to the user.
 */
import { findDates } from './date-extractor.js';

/** True when `text` states a date or a number that none of `sources` gives. */
export function statesValueOutside(text: string, sources: readonly string[], now: Date): boolean {
  const normalised = sources.map((source) => source.normalize('NFKC'));
  const days = new Set(normalised.flatMap((source) => findDates(source, now).map((hit) => hit.value).filter((value): value is string => value !== undefined)));
  const numbers = new Set(normalised.flatMap((source) => (source.match(/\d+(?:\.\d+)?/g) ?? []).map(Number)));
  let rest = text.normalize('NFKC');
  for (const hit of findDates(rest, now)) {
    if (hit.value && !days.has(hit.value)) return true;
    rest = rest.slice(0, hit.start) + ' '.repeat(hit.end - hit.start) + rest.slice(hit.end);
  }
  return (rest.match(/\d+(?:\.\d+)?/g) ?? []).some((number) => !numbers.has(Number(number)));
}
