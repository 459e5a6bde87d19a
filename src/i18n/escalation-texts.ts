/**
 * Texts of a hand-over to a human: what the user is told, and the summary on
 * the escalation card for the human agent (in the user's language).
 */
import type { Language } from './language.js';

/** Why a conversation goes to a human (the card's `reason`). */
export type HandoverReason = 'user_request' | 'emotion' | 'failures' | 'verify_failed';

const HANDOVER: Record<HandoverReason, Record<Language, string>> = {
  user_request: {
    zh: '好的，正在为您转接人工客服，请稍候。我已把您的问题摘要转交给客服。',
    en: 'Sure, connecting you to a human agent. I have passed on a summary of your request.',
  },
  emotion: {
    zh: '非常抱歉给您带来了不好的体验。我已把您的问题摘要转交给人工客服，客服会尽快与您联系，请稍候。',
    en: 'I am very sorry about this experience. I have passed a summary of your request to a human agent, who will be with you shortly.',
  },
  failures: {
    zh: '抱歉，多次尝试仍未能解决您的问题，正在为您转接人工客服，请稍候。',
    en: 'Sorry, I could not resolve this after several tries. Connecting you to a human agent.',
  },
  verify_failed: {
    zh: '抱歉，我没能找到足以回答您问题的结果，正在为您转接人工客服，请稍候。',
    en: 'Sorry, I could not find results that answer your question. Connecting you to a human agent.',
  },
};

/** What the user is told when the conversation goes to a human. */
export function handoverText(reason: HandoverReason, language: Language): string {
  return HANDOVER[reason][language];
}

const REASON: Record<HandoverReason, Record<Language, string>> = {
  user_request: { zh: '用户要求转人工', en: 'The user asked for a human agent' },
  emotion: { zh: '用户情绪激动', en: 'The user is upset' },
  failures: { zh: '连续多轮未能解决用户的问题', en: 'Several turns in a row ended without a result' },
  verify_failed: { zh: '结果经核查仍不足以回答用户的问题', en: 'The results still did not answer the question after checking' },
};

/** What the escalation summary tells the human agent; names are service names in the user's language. */
export interface EscalationSummaryParts {
  reason: HandoverReason;
  /** Words that showed the user is upset (reason `emotion`). */
  emotionWords?: readonly string[];
  /** The user's current message, already shortened. */
  query: string;
  services: readonly string[];
  pending: readonly { service: string; missingKeys: readonly string[] }[];
  failed: readonly string[];
}

/** A short account of the situation for the human agent. */
export function escalationSummaryText(language: Language, parts: EscalationSummaryParts): string {
  const zh = language === 'zh';
  const separator = zh ? '、' : ', ';
  const bracket = (items: readonly string[]) => (zh ? `（${items.join(separator)}）` : ` (${items.join(separator)})`);
  const sentences: string[] = [REASON[parts.reason][language]];
  if (parts.reason === 'emotion' && parts.emotionWords && parts.emotionWords.length > 0) sentences[0] += bracket(parts.emotionWords);
  if (parts.query) sentences.push(zh ? `当前问题：“${parts.query}”` : `current message: "${parts.query}"`);
  if (parts.services.length > 0) sentences.push((zh ? '涉及：' : 'about: ') + parts.services.join(separator));
  if (parts.pending.length > 0) {
    sentences.push((zh ? '待补充：' : 'waiting for: ') + parts.pending.map((task) => `${task.service}${task.missingKeys.length ? bracket(task.missingKeys) : ''}`).join(separator));
  }
  if (parts.failed.length > 0) sentences.push((zh ? '未完成：' : 'failed: ') + parts.failed.join(separator));
  return zh ? `${sentences.join('；')}。` : `${sentences.join('; ')}.`;
}
