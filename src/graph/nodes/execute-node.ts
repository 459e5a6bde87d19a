/**
 * Dispatches the runnable sub-tasks to their remote agents as a DAG
 * (planning/scheduler.ts), streaming agent_start / agent_stream / agent_done /
 * agent_failed as they happen. Dependents receive upstream outputs.
 */
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { agentFailedText, failureReasonText } from '../../i18n/index.js';
import { cardName } from '../../registry/localized-text.js';
import { runTaskGraph } from '../planning/scheduler.js';
import type { SemanticInfo } from '../response-state.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import { createTaskDispatch, type DispatchDependencies } from '../task-dispatch.js';

/** What the execute node needs (the task dispatcher's dependencies). */
export type ExecuteDependencies = DispatchDependencies;

export function createExecuteNode(dependencies: ExecuteDependencies) {
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const plan = state.task_plan;
    if (!plan) return { execution_path: [...state.execution_path, 'execute'] };
    const { snapshot, language } = context;
    const extraInfo: SemanticInfo[] = [];

    const run = createTaskDispatch(dependencies)({ state, context, emit, extraInfo });

    const outcomes = await runTaskGraph({
      tasks: plan.sub_tasks,
      maxParallel: snapshot.supervisor.maxParallel,
      signal: context.signal,
      run,
      onSkip: (task) => {
        const card = snapshot.byId.get(task.assigned_agent);
        if (!card) return;
        emit({
          stage: 'agent_failed',
          content: agentFailedText(language, cardName(card, language), failureReasonText(language, 'dependency')),
          agent_id: card.id,
          is_thinking: true,
          state: { task_id: task.task_id, code: 'dependency' },
        });
      },
    });
    return {
      task_results: { ...state.task_results, ...outcomes },
      semantic_info: [...state.semantic_info, ...extraInfo],
      execution_path: [...state.execution_path, 'execute'],
    };
  };
}
