/**
 * The one shape of an `agent_failed` event, whoever emits it (the dispatcher
 * after a failed call, the execute node for a task it did not run): the
 * user-facing text names the service and a reason read from the failure code;
 * `metadata.state` carries the task id, the code and any details.
 */
import { agentFailedText, failureReasonText, type Language, unknownServiceText } from '../i18n/index.js';
import { type AgentCard, cardName } from '../registry/index.js';
import type { NodeEvent } from './context.js';

/** What went wrong with one sub-task. */
export interface AgentFailure {
  task_id: string;
  /** Failure code (`timeout`, `dependency`, `max_subtasks`, ...); unknown codes read as a plain failure to the user. */
  code: string;
  /** Why, safe to show (no header values or addresses). */
  reason?: string;
  attempts?: number;
}

/** The agent_failed event of `failure` on `card`'s service. */
export function agentFailedEvent(card: AgentCard, language: Language, failure: AgentFailure): NodeEvent {
  return {
    stage: 'agent_failed',
    content: agentFailedText(language, cardName(card, language), failureReasonText(language, failure.code)),
    agent_id: card.id,
    is_thinking: true,
    state: { ...failure },
  };
}

/**
 * The agent_failed event of a task whose agent is no longer in the registry
 * (a reload removed it between planning and dispatch): the user reads a
 * generic service phrase and why; the agent id stays in the `agent_id` field
 * the plan already carried, never in the text, and what is available goes to
 * the logs only.
 */
export function vanishedAgentFailedEvent(agentId: string, language: Language, taskId: string): NodeEvent {
  return {
    stage: 'agent_failed',
    content: agentFailedText(language, unknownServiceText(language), failureReasonText(language, 'agent_unavailable')),
    agent_id: agentId,
    is_thinking: true,
    state: { task_id: taskId, code: 'agent_unavailable' },
  };
}
