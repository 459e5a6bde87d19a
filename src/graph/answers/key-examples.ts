/**
 * Example values offered with a request for a missing key, so the user sees
 * what a valid answer looks like. Both answer strategies use them.
 */
import { type Language, tomorrowText } from '../../i18n/index.js';
import type { AgentCard, SemanticKeySpec } from '../../registry/types.js';

/** Example values for a key: its enum values, else a typical value of its type, else a card example. */
export function keyExamples(spec: SemanticKeySpec, card: AgentCard, now: Date, language: Language): string[] {
  const extract = spec.extract;
  switch (extract.type) {
    case 'enum':
      return extract.values.slice(0, 3);
    case 'date': {
      const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
      const iso = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
      return [tomorrowText(language), iso];
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
