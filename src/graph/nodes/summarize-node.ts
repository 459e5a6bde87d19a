/**
 * Aggregates the sub-task results into the final answer: what was done, what
 * did not run and why, and which information is still needed (with examples).
 * Updates short-term memory, including the parked tasks for the next turn.
 */
import type { AnswerComposer } from '../answers/types.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { memoryAfterBusinessTurn } from '../memory.js';
import { summarizeStartText } from '../messages.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';

export function createSummarizeNode(dependencies: { answers: AnswerComposer }) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const plan = state.task_plan!;
    const outcomes = state.task_results;
    const completed = Object.values(outcomes).filter((outcome) => outcome.status === 'completed').length;
    emit({ stage: 'summarize_start', content: summarizeStartText(context.language, completed), agent_id: 'summarize', is_thinking: true });
    const answer = await dependencies.answers.summarize(
      {
        query: state.rewritten_query,
        language: context.language,
        plan,
        outcomes,
        semanticInfo: state.semantic_info,
        snapshot: context.snapshot,
        now: context.now,
        history: state.memory.history,
        verification: state.verification,
      },
      context,
      (delta) => emit({ stage: 'final', content: delta, agent_id: 'summarize', is_thinking: false, state: { delta: true } }),
    );
    const taskStates = plan.sub_tasks.map((task) => ({
      task_id: task.task_id,
      agent: task.assigned_agent,
      status: outcomes[task.task_id]?.status ?? task.status,
      ...(outcomes[task.task_id]?.reason ? { reason: outcomes[task.task_id]!.reason } : {}),
    }));
    emit({
      stage: 'final',
      content: answer,
      agent_id: 'summarize',
      is_thinking: false,
      semantic_info: state.semantic_info,
      state: {
        delta: false,
        plan_id: plan.plan_id,
        task_type: plan.task_type,
        tasks: taskStates,
        ...(state.verification ? { verification: { sufficient: state.verification.sufficient, retried: state.verification.retried, judged: state.verification.judged } } : {}),
      },
    });
    const memory = memoryAfterBusinessTurn({
      memory: state.memory,
      turn: {
        query: state.query,
        rewrittenQuery: state.rewritten_query,
        answer,
        agents: plan.sub_tasks.map((task) => task.assigned_agent),
      },
      tasks: plan.sub_tasks,
      outcomes: Object.fromEntries(plan.sub_tasks.map((task) => [task.task_id, outcomes[task.task_id] ?? { task_id: task.task_id, agent_id: task.assigned_agent, status: task.status }])),
      snapshot: context.snapshot,
      unresolved: state.verification?.sufficient === false,
    });
    return {
      final_answer: answer,
      memory,
      execution_path: [...state.execution_path, 'summarize'],
    };
  };
}

/** After summarize: escalate when consecutive unresolved turns reached `escalate_after_failures`. */
export function routeAfterSummarize(state: SupervisorState, config: NodeConfig): 'escalate' | '__end__' {
  const threshold = turnContext(config).snapshot.supervisor.escalateAfterFailures;
  return threshold > 0 && state.memory.unresolved_turns >= threshold ? 'escalate' : '__end__';
}
