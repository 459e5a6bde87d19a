/**
 * Example values offered with a request for a missing key, so the user sees
 * what a valid answer looks like. Both answer strategies use them.
 */
import { type Language, tomorrowText } from '../../i18n/index.js';
import type { AgentCard, SemanticKeySpec } from '../../registry/index.js';
import { addLocalDays, formatLocalDate } from '../../text/index.js';
import type { SafePattern } from '../../util/index.js';

/**
 * Example values for a key: its enum values, a typical value of its type, or — for a pattern — the value it finds
 * in the card's examples ("2024051812345678", never the whole sentence it sits in: that may be another request).
 */
export function keyExamples(spec: SemanticKeySpec, card: AgentCard, now: Date, language: Language): string[] {
  const extract = spec.extract;
  switch (extract.type) {
    case 'enum':
      return enumChoices(extract.values, language).slice(0, 3);
    case 'date': {
      return [tomorrowText(language), formatLocalDate(addLocalDays(now, 1))];
    }
    case 'number':
      return [String(extract.min ?? 1)];
    case 'phone':
      return ['13800138000'];
    case 'email':
      return ['name@example.com'];
    case 'pattern':
      return patternExample(extract.matcher, card.examples);
    default:
      return card.examples.slice(0, 1);
  }
}

const HAN = /[\u4e00-\u9fff]/u;

/** An enum's values in the user's language (Chinese values for zh, the others for en), all of them when none fit. */
export function enumChoices(values: readonly string[], language: Language): string[] {
  const fitting = values.filter((value) => HAN.test(value) === (language === 'zh'));
  return fitting.length > 0 ? [...fitting] : [...values];
}

/** The first value `matcher` finds in `examples` (its first capture group when it has one), or none. */
function patternExample(matcher: SafePattern, examples: readonly string[]): string[] {
  for (const example of examples) {
    const match = matcher.findAll(example)[0];
    if (!match) continue;
    const value = match.groups.find((group): group is string => typeof group === 'string' && group.length > 0) ?? match.text;
    return [value.trim()];
  }
  return [];
}
