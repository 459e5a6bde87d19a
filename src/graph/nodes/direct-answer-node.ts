/**
 * Simple intents (greeting, thanks, capabilities, out of scope, sensitive)
 * are answered directly, without a plan. A clarification (contract v4) is
 * too: `plan_done` and `final` carry its options, the answer asks the question
 * and lists their labels, no model is called, and the session keeps the
 * options and the message until the next turn answers or drops them.
 */
import type { AnswerComposer } from '../answers/types.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { appendTurn } from '../memory/memory.js';
import { budgetNotices } from '../control/notices.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import { clarificationQuestionText, planStartText } from '../../i18n/index.js';

export function createDirectAnswerNode(dependencies: { answers: AnswerComposer }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const kind = state.intent?.simpleKind ?? 'out_of_scope';
    const clarification = kind === 'clarify' ? state.intent?.clarification : undefined;
    if (clarification && clarification.options.length > 0) {
      emit({ stage: 'plan_start', content: planStartText(context.language), agent_id: 'supervisor', is_thinking: true });
      const question = clarificationQuestionText(clarification.options.map((option) => option.label), context.language);
      emit({ stage: 'plan_done', content: question, agent_id: 'supervisor', is_thinking: true, clarification, state: { kind } });
      const answer = state.notices.length > 0 ? `${state.notices.join('\n')}\n\n${question}` : question;
      emit({ stage: 'final', content: answer, agent_id: 'supervisor', is_thinking: false, clarification, state: { kind, delta: false } });
      const turn = { query: state.query, rewrittenQuery: state.rewritten_query, answer, agents: [] };
      return {
        final_answer: answer,
        execution_path: [...state.execution_path, 'direct_answer'],
        memory: {
          ...state.memory,
          ...appendTurn(state.memory, turn, context.snapshot.supervisor.memoryMaxHistory, state.intent?.memorySummary),
          clarification: { options: clarification.options, query: state.query, language: context.language, asked_at: context.now.toISOString() },
        },
      };
    }
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
