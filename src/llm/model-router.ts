/**
 * Which model tier a call uses. The rule, in order:
 *
 * 1. `plan` always uses the main model: the plan decides everything after it.
 * 2. A simple turn (greeting, thanks, capabilities, out of scope, sensitive,
 *    abusive, or an escalation) uses the small model for every purpose.
 * 3. `intent` (intent recognition and query rewrite) uses the small model for
 *    a short query: at most 12 CJK characters when the query is mostly CJK,
 *    else at most 40 characters. Longer queries tend to carry several intents
 *    and references to earlier turns, which the main model resolves better.
 * 4. Everything else, in particular the final answer of a business turn, uses
 *    the main model.
 *
 * When no small model is configured the gateway maps `small` to the main
 * model, so the rule costs nothing there. The reason string is logged and
 * recorded with each call (`LlmCallOptions.tierReason`).
 */
import { countCjkCharacters } from './token-estimate.js';
import type { ModelTier } from './types.js';

/** What the caller knows about the turn when it is about to call the model. */
export type TurnKind = 'business' | 'simple' | 'escalate' | 'unknown';

export interface TierInput {
  /** `intent`, `plan`, `answer`, ... (same label as `LlmCallOptions.purpose`). */
  purpose: string;
  /** The turn's kind as far as known (before intent recognition: the rule fast path's guess, or `unknown`). */
  turnKind?: TurnKind;
  /** The user's query; preferred over `queryLength` because it tells CJK from Latin. */
  query?: string;
  /** Length of the query in characters when the text is not at hand; judged by the stricter CJK limit. */
  queryLength?: number;
}

export interface TierChoice {
  tier: ModelTier;
  reason: string;
}

/** Short-query limits for the intent step. */
export const SHORT_QUERY_LIMITS = { cjkCharacters: 12, latinCharacters: 40 } as const;

/** Picks the tier for one call, with the reason (see the file header for the rule). */
export function chooseTier(input: TierInput): TierChoice {
  const purpose = input.purpose;
  const turnKind = input.turnKind ?? 'unknown';
  if (purpose === 'plan') return { tier: 'main', reason: 'planning always uses the main model' };
  if (turnKind === 'simple' || turnKind === 'escalate') return { tier: 'small', reason: `${turnKind} turn` };
  if (purpose === 'intent') {
    const short = describeShortQuery(input);
    if (short.short) return { tier: 'small', reason: `short query (${short.detail})` };
    return { tier: 'main', reason: `long query for intent (${short.detail})` };
  }
  if (turnKind === 'business') return { tier: 'main', reason: `${purpose} of a business turn` };
  return { tier: 'main', reason: `${purpose}: main model by default` };
}

function describeShortQuery(input: TierInput): { short: boolean; detail: string } {
  if (typeof input.query === 'string') {
    const text = input.query.trim();
    const characters = [...text].filter((character) => !/\s/u.test(character)).length;
    const cjk = countCjkCharacters(text);
    if (cjk * 2 >= characters && cjk > 0) {
      return { short: cjk <= SHORT_QUERY_LIMITS.cjkCharacters, detail: `${cjk} CJK characters, limit ${SHORT_QUERY_LIMITS.cjkCharacters}` };
    }
    const length = [...text].length;
    return { short: length <= SHORT_QUERY_LIMITS.latinCharacters, detail: `${length} characters, limit ${SHORT_QUERY_LIMITS.latinCharacters}` };
  }
  if (typeof input.queryLength === 'number' && Number.isFinite(input.queryLength)) {
    return { short: input.queryLength <= SHORT_QUERY_LIMITS.cjkCharacters, detail: `${input.queryLength} characters, limit ${SHORT_QUERY_LIMITS.cjkCharacters}` };
  }
  return { short: false, detail: 'query unknown' };
}
