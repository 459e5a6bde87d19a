/**
 * Example values offered with a request for a missing key, so the user sees
 * what a valid answer looks like. Both answer strategies use them.
 */
import { type Language, tomorrowText } from '../../i18n/index.js';
import type { AgentCard, SemanticKeySpec } from '../../registry/types.js';
import { addLocalDays, formatLocalDate } from '../../text/index.js';

/** Example values for a key: its enum values, else a typical value of its type, else a card example. */
export function keyExamples(spec: SemanticKeySpec, card: AgentCard, now: Date, language: Language): string[] {
  const extract = spec.extract;
  switch (extract.type) {
    case 'enum':
      return extract.values.slice(0, 3);
    case 'date': {
      return [tomorrowText(language), formatLocalDate(addLocalDays(now, 1))];
    }
    case 'number':
      return [String(extract.min ?? 1)];
    case 'phone':
      return ['13800138000'];
    case 'email':
      return ['name@example.com'];
    default:
      return card.examples.slice(0, 1);
  }
}
