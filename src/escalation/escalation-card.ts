/**
 * The escalation card (docs/api.md#conversation-rules): what a human agent, or the ticket system
 * behind `supervisor.escalation.webhook_url`, needs to take over without
 * asking the user again. Personal data is masked in every field (§7): the
 * card leaves the supervisor, so it never carries a full phone or card number.
 */
import { maskPersonalData, maskPersonalDataDeep } from '../privacy/index.js';
import { escalationSummaryText, type HandoverReason, type Language } from '../i18n/index.js';

/** Why a conversation goes to a human. */
export type EscalationReason = HandoverReason;

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
  language: Language;
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

/** A short account of the situation for the human agent. */
export function summariseEscalation(input: EscalationCardInput): string {
  return escalationSummaryText(input.language, {
    reason: input.reason,
    emotionWords: input.emotionWords,
    query: input.query.trim().slice(0, 200),
    services: [...new Set(input.intents.map(input.nameOf))],
    pending: input.pending.map((task) => ({ service: input.nameOf(task.agent), missingKeys: task.missing_keys })),
    failed: [...new Set(input.failedTasks.map((task) => input.nameOf(task.agent)))],
  });
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
