/**
 * What a sub-agent may see of personal data (docs/api.md#personal-data: "sub-agents receive
 * the real values they declared as keys; nothing else does"). The `message`
 * and `upstream` of a sub-task are masked with every kind, except a value
 * equal to one of the receiving agent's own declared input values: the text
 * "call 13912345678" may reach the agent that declared `phone:
 * 13912345678`, while another user detail in the same text, or a phone in an
 * upstream agent's output, arrives masked.
 */
import type { PiiMasker } from './pii-masker.js';

/** Private-use characters around a kept value while the rest is masked; no kind or sane pattern matches them. */
const OPEN = '\uE000';
const CLOSE = '\uE001';
const TOKEN = /\uE000([\uE100-\uF8FF])\uE001/g;
const MAX_KEPT = 0xf8ff - 0xe100;

/** A masker that leaves the `declared` values (the agent's own inputs) readable and masks every other personal value. */
export function maskUndeclared(masker: PiiMasker, declared: readonly unknown[]): PiiMasker {
  const kept = [
    ...new Set(
      declared
        .filter((value): value is string | number => typeof value === 'string' || typeof value === 'number')
        .map((value) => String(value))
        .filter((value) => value.length >= 3 && masker.mask(value) !== value),
    ),
  ]
    // Longest first, so a value inside another is not split from it.
    .sort((left, right) => right.length - left.length)
    .slice(0, MAX_KEPT);
  const keptSet = new Set(kept);
  const mask = (text: string): string => {
    if (typeof text !== 'string' || text.length === 0) return text;
    // Text that already holds the marker characters is masked whole: nothing of it can pass for a kept value.
    if (kept.length === 0 || text.includes(OPEN)) return masker.mask(text);
    let marked = text;
    kept.forEach((value, index) => {
      marked = marked.split(value).join(`${OPEN}${String.fromCharCode(0xe100 + index)}${CLOSE}`);
    });
    return masker.mask(marked).replace(TOKEN, (_token, code: string) => kept[code.charCodeAt(0) - 0xe100] ?? '');
  };
  const maskDeep = <T>(value: T): T => {
    const visit = (item: unknown, depth: number): unknown => {
      if (typeof item === 'string') return mask(item);
      if (typeof item === 'number') return keptSet.has(String(item)) ? item : masker.maskDeep(item);
      if (depth > 64 || item === null || typeof item !== 'object') return item;
      if (Array.isArray(item)) return item.map((child) => visit(child, depth + 1));
      return Object.fromEntries(Object.entries(item).map(([key, child]) => [mask(key), visit(child, depth + 1)]));
    };
    return visit(value, 0) as T;
  };
  return { mask, maskDeep };
}
