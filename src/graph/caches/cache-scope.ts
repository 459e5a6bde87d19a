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
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { AgentCard } from '../../registry/types.js';

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
