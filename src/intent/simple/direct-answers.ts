/**
 * User-facing text for turns answered without a plan, and the "明白了！…" line
 * shown at `intent_done`, in the language of the query. The sentences live in
 * `i18n/direct-answer-texts.ts`; this picks one and fills in the card names and
 * descriptions. Agent ids never appear.
 */
import {
  abusiveText,
  capabilitiesText,
  farewellText,
  greetingText,
  howCanIHelpText,
  intentUnderstoodText,
  outOfScopeText,
  sensitiveText,
  thanksText,
  transferText,
  type Language,
} from '../../i18n/index.js';
import { type AgentCard, cardDescription, cardName, type RegistrySnapshot } from '../../registry/index.js';
import type { SimpleIntentKind } from '../types.js';

/** Kinds of direct answer: the simple intents plus a hand-over to a human. */
export type DirectAnswerKind = SimpleIntentKind | 'escalate';

const FAREWELL = /再见|拜拜|回头见|下次见|\bbye\b|goodbye|good bye|see you|see ya/i;

/** The answer to a simple turn (or an escalation) in the turn's language; `query` tells a farewell from thanks. */
export function composeDirectAnswer(kind: DirectAnswerKind, snapshot: Pick<RegistrySnapshot, 'enabledAgents'>, language: Language, query = ''): string {
  const cards = snapshot.enabledAgents;
  const names = cards.map((card) => cardName(card, language));
  switch (kind) {
    case 'greeting':
      return greetingText(language, names);
    case 'thanks':
      return typeof query === 'string' && FAREWELL.test(query) ? farewellText(language) : thanksText(language);
    case 'capabilities':
      return capabilitiesText(language, cards.map((card) => ({ name: cardName(card, language), description: cardDescription(card, language) })));
    case 'out_of_scope':
      return outOfScopeText(language, names);
    case 'sensitive':
      return sensitiveText(language);
    case 'abusive':
      return abusiveText(language);
    case 'escalate':
      return transferText(language);
    default:
      return howCanIHelpText(language);
  }
}

/**
 * The `intent_done` line from the matched cards' names, e.g.
 * "明白了！我将为您处理：酒店服务、机场接送机服务。"
 */
export function composeIntentMessage(cards: readonly Pick<AgentCard, 'name' | 'names'>[], language: Language): string {
  return intentUnderstoodText(language, cards.map((card) => cardName(card, language)));
}
