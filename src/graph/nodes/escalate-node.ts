/**
 * Hands the conversation to a human: on request, or after
 * `escalate_after_failures` consecutive unresolved turns. The escalation card
 * in `metadata.state` gives the human agent the context at a glance.
 */
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { rememberTurn } from '../memory.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

export function createEscalateNode() {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const requested = state.intent?.kind === 'escalate';
    const reason = requested ? 'user_request' : state.verification?.sufficient === false ? 'verify_failed' : 'consecutive_failures';
    const content =
      context.language === 'zh'
        ? requested
          ? '好的，正在为您转接人工客服，请稍候。我已把您的问题摘要转交给客服。'
          : '抱歉，多次尝试仍未能解决您的问题，正在为您转接人工客服，请稍候。'
        : requested
          ? 'Sure, connecting you to a human agent. I have passed on a summary of your request.'
          : 'Sorry, I could not resolve this after several tries. Connecting you to a human agent.';
    const escalationCard = {
      reason,
      user_id: state.user_id,
      session_id: state.thread_id,
      current_query: state.query,
      recent_queries: state.memory.history.map((turn) => turn.query),
      pending: state.memory.pending.map((task) => ({ agent: task.agent_id, missing_keys: task.missing_keys })),
      failed_tasks: Object.values(state.task_results)
        .filter((outcome) => outcome.status === 'failed')
        .map((outcome) => ({ agent: outcome.agent_id, reason: outcome.reason })),
      unresolved_turns: state.memory.unresolved_turns,
    };
    emit({ stage: 'escalate', content, agent_id: 'supervisor', is_thinking: false, state: { escalation_card: escalationCard } });
    const answer = state.final_answer ? `${state.final_answer}\n\n${content}` : content;
    return {
      final_answer: answer,
      execution_path: [...state.execution_path, 'escalate'],
      memory: {
        ...state.memory,
        history: requested
          ? rememberTurn(state.memory, { query: state.query, rewrittenQuery: state.rewritten_query, answer: content, agents: [] }, context.snapshot.supervisor.memoryMaxHistory)
          : state.memory.history,
        pending: [],
        unresolved_turns: 0,
      },
    };
  };
}
