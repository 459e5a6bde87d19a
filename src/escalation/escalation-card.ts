/**
 * The escalation card (CONTRACT §3): what a human agent, or the ticket system
 * behind `supervisor.escalation.webhook_url`, needs to take over without
 * asking the user again. Personal data is masked in every field (§7): the
 * card leaves the supervisor, so it never carries a full phone or card number.
 */
import { maskPersonalData, maskPersonalDataDeep } from '../guard/mask-personal-data.js';

export type EscalationReason = 'user_request' | 'emotion' | 'failures' | 'verify_failed';

export interface EscalationCard {
  reason: EscalationReason;
  /** One or two sentences for the human agent, in the user's language. */
  summary: string;
  user_id: string;
  session_id: string;
  /** Agent ids recognised in this turn (for routing the ticket). */
  intents: string[];
  pending: { agent: string; missing_keys: string[] }[];
  failed_tasks: { agent: string; reason: string }[];
  /** Earlier turns of short-term memory, then this one. */
  recent_turns: { query: string; answer: string }[];
  trace_id: string;
  /** ISO timestamp. */
  created_at: string;
}

export interface EscalationCardInput {
  reason: EscalationReason;
  language: 'zh' | 'en';
  userId: string;
  sessionId: string;
  query: string;
  /** The answer of this turn so far ('' when the turn goes straight to a human). */
  answer: string;
  intents: readonly string[];
  pending: readonly { agent: string; missing_keys: readonly string[] }[];
  failedTasks: readonly { agent: string; reason: string }[];
  history: readonly { query: string; answer: string }[];
  traceId: string;
  now: Date;
  /** User-facing name of an agent id. */
  nameOf: (agentId: string) => string;
  /** Emotion words that triggered the escalation, when the reason is `emotion`. */
  emotionWords?: readonly string[];
}

const REASON_TEXT: Record<EscalationReason, { zh: string; en: string }> = {
  user_request: { zh: '用户要求转人工', en: 'The user asked for a human agent' },
  emotion: { zh: '用户情绪激动', en: 'The user is upset' },
  failures: { zh: '连续多轮未能解决用户的问题', en: 'Several turns in a row ended without a result' },
  verify_failed: { zh: '结果经核查仍不足以回答用户的问题', en: 'The results still did not answer the question after checking' },
};

/** A short account of the situation for the human agent. */
export function summariseEscalation(input: EscalationCardInput): string {
  const zh = input.language === 'zh';
  const separator = zh ? '、' : ', ';
  const parts: string[] = [REASON_TEXT[input.reason][input.language]];
  if (input.reason === 'emotion' && input.emotionWords && input.emotionWords.length > 0) {
    parts[0] += zh ? `（${input.emotionWords.join(separator)}）` : ` (${input.emotionWords.join(separator)})`;
  }
  const query = input.query.trim().slice(0, 200);
  if (query) parts.push(zh ? `当前问题：“${query}”` : `current message: "${query}"`);
  if (input.intents.length > 0) parts.push((zh ? '涉及：' : 'about: ') + [...new Set(input.intents.map(input.nameOf))].join(separator));
  if (input.pending.length > 0) {
    parts.push((zh ? '待补充：' : 'waiting for: ') + input.pending.map((task) => `${input.nameOf(task.agent)}${task.missing_keys.length ? (zh ? `（${task.missing_keys.join(separator)}）` : ` (${task.missing_keys.join(separator)})`) : ''}`).join(separator));
  }
  if (input.failedTasks.length > 0) parts.push((zh ? '未完成：' : 'failed: ') + [...new Set(input.failedTasks.map((task) => input.nameOf(task.agent)))].join(separator));
  return zh ? `${parts.join('；')}。` : `${parts.join('; ')}.`;
}

/** Builds the masked card. */
export function buildEscalationCard(input: EscalationCardInput): EscalationCard {
  const recent = [...input.history.map((turn) => ({ query: turn.query, answer: turn.answer })), { query: input.query, answer: input.answer }];
  const card: EscalationCard = {
    reason: input.reason,
    summary: maskPersonalData(summariseEscalation(input)),
    user_id: input.userId,
    session_id: input.sessionId,
    intents: [...input.intents],
    pending: input.pending.map((task) => ({ agent: task.agent, missing_keys: [...task.missing_keys] })),
    failed_tasks: input.failedTasks.map((task) => ({ agent: task.agent, reason: task.reason })),
    recent_turns: recent.filter((turn) => turn.query.trim() !== '' || turn.answer.trim() !== ''),
    trace_id: input.traceId,
    created_at: input.now.toISOString(),
  };
  return maskPersonalDataDeep(card);
}
