/**
 * Hands the conversation to a human (seed 000's rules): on request, on a
 * strongly negative message (see escalation/emotion.ts), after
 * `escalate_after_failures` consecutive unresolved turns, or when a verify
 * step gave up. The `escalate` event carries the masked escalation card in
 * `metadata.state.escalation_card`; when `supervisor.escalation.webhook_url`
 * is set the card also goes to the ticket system, without waiting for it.
 */
import { buildEscalationCard, type EscalationReason, type TicketWebhook } from '../../escalation/index.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { maskEscalationCard } from '../../privacy/index.js';
import { appendTurn } from '../memory/memory.js';
import { handoverText } from '../../i18n/index.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

export interface EscalateDependencies {
  /** Delivers cards to `supervisor.escalation.webhook_url`; absent = cards only go into the event. */
  ticketWebhook?: TicketWebhook;
}

/** Why this turn escalates, by seed 000's priority: the user's request first. */
export function escalationReason(state: SupervisorState): EscalationReason {
  if (state.intent?.kind === 'escalate') return 'user_request';
  if (state.escalation) return state.escalation.reason;
  if (state.verification?.sufficient === false) return 'verify_failed';
  return 'failures';
}

export function createEscalateNode(dependencies: EscalateDependencies = {}) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const { snapshot, language } = context;
    const reason = escalationReason(state);
    const content = handoverText(reason, language);
    const startedHere = reason === 'user_request' || reason === 'emotion';
    // The card is masked for the built-in kinds; the registry's pii_patterns are masked here too.
    const escalationCard = maskEscalationCard(snapshot, buildEscalationCard({
      reason,
      language,
      userId: state.user_id,
      sessionId: state.thread_id,
      query: state.query,
      answer: state.final_answer || content,
      intents: (state.intent?.intents ?? []).map((intent) => intent.agentId),
      pending: state.memory.pending.map((task) => ({ agent: task.agent_id, missing_keys: task.missing_keys })),
      failedTasks: Object.values(state.task_results)
        .filter((outcome) => outcome.status === 'failed' || outcome.status === 'skipped')
        .map((outcome) => ({ agent: outcome.agent_id, reason: outcome.reason ?? 'agent_failed' })),
      // A turn that already went through summarize has itself as the last history entry.
      history: startedHere ? state.memory.history : state.memory.history.slice(0, -1),
      traceId: context.traceId,
      now: context.now,
      nameOf: (agentId) => snapshot.byId.get(agentId)?.name ?? agentId,
      emotionWords: state.escalation?.words,
    }));
    emit({ stage: 'escalate', content, agent_id: 'supervisor', is_thinking: false, state: { escalation_card: escalationCard } });
    const webhookUrl = snapshot.supervisor.escalation?.webhookUrl;
    if (webhookUrl && dependencies.ticketWebhook) dependencies.ticketWebhook.send(webhookUrl, escalationCard, { allowPrivateAddresses: snapshot.supervisor.allowPrivateEndpoints });
    const answer = state.final_answer ? `${state.final_answer}\n\n${content}` : content;
    return {
      final_answer: answer,
      execution_path: [...state.execution_path, 'escalate'],
      memory: {
        ...state.memory,
        ...(startedHere
          ? appendTurn(state.memory, { query: state.query, rewrittenQuery: state.rewritten_query, answer: content, agents: [] }, snapshot.supervisor.memoryMaxHistory)
          : {}),
        pending: [],
        unresolved_turns: 0,
      },
    };
  };
}
