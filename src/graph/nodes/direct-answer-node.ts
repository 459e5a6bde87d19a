/**
 * Simple intents (greeting, thanks, capabilities, out of scope, sensitive)
 * are answered directly, without a plan.
 */
import type { AnswerComposer } from '../answers/types.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { appendTurn } from '../memory/memory.js';
import { budgetNotices } from '../control/notices.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

export function createDirectAnswerNode(dependencies: { answers: AnswerComposer }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const kind = state.intent?.simpleKind ?? 'out_of_scope';
    const reply = await dependencies.answers.direct(
      { kind, query: state.query, language: context.language, history: state.memory.history, snapshot: context.snapshot, intent: state.intent ?? undefined },
      context,
      (delta) => emit({ stage: 'final', content: delta, agent_id: 'supervisor', is_thinking: false, state: { delta: true } }),
    );
    // Notices about parked tasks that expired, and any budget the answer ran into, open the answer.
    const budgetTexts = context.budget
      ? budgetNotices({ reached: context.budget.reached(), limits: context.budget.limits, snapshot: context.snapshot, language: context.language })
      : [];
    const notices = [...budgetTexts, ...state.notices];
    const opening = notices.length > 0 ? `${notices.join('\n')}\n\n` : '';
    const answer = `${opening}${reply}`;
    emit({ stage: 'final', content: answer, agent_id: 'supervisor', is_thinking: false, state: { kind, delta: false } });
    return {
      final_answer: answer,
      execution_path: [...state.execution_path, 'direct_answer'],
      memory: {
        ...state.memory,
        ...appendTurn(
          state.memory,
          { query: state.query, rewrittenQuery: state.rewritten_query, answer, agents: [] },
          context.snapshot.supervisor.memoryMaxHistory,
          state.intent?.memorySummary,
        ),
      },
    };
  };
}
