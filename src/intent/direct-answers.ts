/**
 * User-facing text for turns answered without a plan, and the "明白了！…" line
 * shown at `intent_done`. Everything is built from card names and
 * descriptions in the query's language; agent ids never appear.
 */
import { cardDescription, cardName } from '../registry/localized-text.js';
import type { AgentCard, RegistrySnapshot } from '../registry/types.js';
import type { SimpleIntentKind } from './types.js';
import { detectLanguage } from '../text/text-terms.js';

/** Kinds of direct answer: the simple intents plus a hand-over to a human. */
export type DirectAnswerKind = SimpleIntentKind | 'escalate';

type CardText = Pick<AgentCard, 'name' | 'description' | 'names' | 'descriptions'>;

const FAREWELL = /再见|拜拜|回头见|下次见|\bbye\b|goodbye|good bye|see you|see ya/i;

/** The answer to a simple turn (or an escalation), in the language of the query. */
export function composeDirectAnswer(kind: DirectAnswerKind, snapshot: Pick<RegistrySnapshot, 'enabledAgents'>, query: string): string {
  const language = detectLanguage(typeof query === 'string' ? query : '');
  const cards = snapshot.enabledAgents;
  const zh = language === 'zh';
  switch (kind) {
    case 'greeting':
      return zh
        ? `您好！我是您的智能助手，可以为您提供${joinNames(cards, 'zh')}。请问有什么可以帮您？`
        : `Hello! I'm your assistant. I can help with ${joinNames(cards, 'en')}. What can I do for you?`;
    case 'thanks':
      if (FAREWELL.test(query)) return zh ? '再见！期待再次为您服务。' : 'Goodbye! Happy to help again any time.';
      return zh ? '不客气！还有其他需要随时告诉我。' : "You're welcome! Let me know if there's anything else.";
    case 'capabilities':
      return capabilityList(cards, language);
    case 'out_of_scope':
      return cards.length === 0
        ? zh
          ? '抱歉，这个问题超出了我目前的服务范围，当前也没有可用的服务。'
          : "Sorry, that's outside what I can help with, and no services are available right now."
        : zh
          ? `抱歉，这个问题超出了我目前的服务范围。我可以为您提供：${joinNames(cards, 'zh')}。`
          : `Sorry, that's outside what I can help with. I can help with: ${joinNames(cards, 'en')}.`;
    case 'sensitive':
      return zh
        ? '抱歉，这个话题我无法提供帮助。如果您正面临困难或危险，请及时联系身边的人或当地的紧急求助电话。'
        : "Sorry, I can't help with that topic. If you are in difficulty or danger, please reach out to someone near you or your local emergency number.";
    case 'abusive':
      return zh
        ? '我理解您可能有些着急。请文明交流，我会尽力为您提供帮助。'
        : "I understand you may be frustrated. Let's keep it respectful and I'll do my best to help.";
    case 'escalate':
      return zh ? '好的，正在为您转接人工客服，请稍候。' : "Sure, I'm transferring you to a human agent. Please hold on.";
    default:
      return zh ? '请问有什么可以帮您？' : 'How can I help you?';
  }
}

/**
 * The `intent_done` line from the matched cards' names, e.g.
 * "明白了！我将为您处理：酒店服务、机场接送机服务。"
 */
export function composeIntentMessage(cards: readonly Pick<AgentCard, 'name' | 'names'>[], query: string): string {
  const language = detectLanguage(typeof query === 'string' ? query : '');
  if (cards.length === 0) return language === 'zh' ? '明白了！正在为您处理。' : "Got it! I'm on it.";
  return language === 'zh'
    ? `明白了！我将为您处理：${cards.map((entry) => cardName(entry, language)).join('、')}。`
    : `Got it! I'll take care of: ${cards.map((entry) => cardName(entry, language)).join(', ')}.`;
}

function capabilityList(cards: readonly CardText[], language: 'zh' | 'en'): string {
  if (cards.length === 0) return language === 'zh' ? '目前暂时没有可用的服务，请稍后再试。' : 'No services are available right now. Please try again later.';
  const lines = cards.map((entry) => {
    const description = cardDescription(entry, language);
    return `- ${cardName(entry, language)}${description ? (language === 'zh' ? `：${description}` : `: ${description}`) : ''}`;
  });
  return language === 'zh'
    ? `我可以为您提供以下服务：\n${lines.join('\n')}\n请告诉我您需要什么。`
    : `Here is what I can help with:\n${lines.join('\n')}\nJust tell me what you need.`;
}

function joinNames(cards: readonly CardText[], language: 'zh' | 'en'): string {
  const names = cards.map((entry) => cardName(entry, language));
  if (names.length === 0) return language === 'zh' ? '多种服务' : 'several services';
  return language === 'zh' ? names.join('、') : names.join(', ');
}
