/**
 * Dispatches the runnable sub-tasks to their remote agents as a DAG
 * (planning/scheduler.ts), streaming agent_start / agent_stream / agent_done /
 * agent_failed as they happen. Dependents receive upstream outputs.
 *
 * The turn's budgets apply here: only the first `max_subtasks` runnable tasks
 * are sent (the rest are skipped with reason `max_subtasks`), and once the
 * turn's deadline passes nothing new starts (reason `max_turn_ms`). Each task
 * not run for a budget gets an agent_failed event naming the budget.
 */
import type { AgentCard } from '../../registry/index.js';
import { eventWriter, turnContext, type NodeConfig } from '../context.js';
import { agentFailedEvent } from '../agent-failed-event.js';
import { runTaskGraph, selectWithinSubtaskBudget, type SubTask, type TaskOutcome } from '../../planning/index.js';
import type { SemanticInfo } from '../../events/index.js';
import type { SupervisorState, SupervisorUpdate } from '../state.js';
import { createTaskDispatch, type DispatchDependencies } from '../dispatch/task-dispatch.js';

/** What the execute node needs (the task dispatcher's dependencies). */
export type ExecuteDependencies = DispatchDependencies;

export function createExecuteNode(dependencies: ExecuteDependencies) {
  // Built once: it keeps each snapshot's guards across turns.
  const dispatch = createTaskDispatch(dependencies);
  return async (state: SupervisorState, config: NodeConfig): Promise<SupervisorUpdate> => {
    const context = turnContext(config);
    const emit = eventWriter(config);
    const plan = state.task_plan;
    if (!plan) return { execution_path: [...state.execution_path, 'execute'] };
    const { snapshot, language, budget } = context;
    const extraInfo: SemanticInfo[] = [];
    const notRun = (task: SubTask, code: string) => {
      const card: AgentCard | undefined = snapshot.byId.get(task.assigned_agent);
      if (!card) return;
      emit(agentFailedEvent(card, language, { task_id: task.task_id, code }));
    };

    const budgetCut: Record<string, TaskOutcome> = {};
    let tasks: readonly SubTask[] = plan.sub_tasks;
    if (budget) {
      const { admitted, cut } = selectWithinSubtaskBudget(plan.sub_tasks, budget.limits.maxSubtasks);
      if (cut.length > 0) {
        budget.reach('max_subtasks', { runnable: admitted.length + cut.length, cut: cut.map((task) => task.task_id) });
        const cutIds = new Set(cut.map((task) => task.task_id));
        // Cut tasks leave the run; their dependents are cut with them (a prefix of a dependency-first order).
        tasks = plan.sub_tasks.filter((task) => !cutIds.has(task.task_id));
        for (const task of cut) {
          budgetCut[task.task_id] = { task_id: task.task_id, agent_id: task.assigned_agent, status: 'skipped', reason: 'max_subtasks' };
          notRun(task, 'max_subtasks');
        }
      }
    }

    const dispatchTask = dispatch({ state, context, emit, extraInfo });
    // A confirmed task also gets what its upstream tasks gave in the turn that held it (`carried_upstream`).
    const run: typeof dispatchTask = (task, upstream, options) => {
      const carried = (state.carried_upstream?.[task.task_id] ?? []).filter((item) => !upstream.some((outcome) => outcome.task_id === item.task_id));
      return dispatchTask(task, carried.length > 0 ? [...carried, ...upstream] : upstream, options);
    };
    const outcomes = await runTaskGraph({
      tasks,
      maxParallel: snapshot.supervisor.maxParallel,
      signal: context.signal,
      deadline: budget?.deadline,
      run,
      onSkip: (task) => notRun(task, 'dependency'),
      onDeadlineSkip: (task) => notRun(task, 'max_turn_ms'),
    });
    return {
      task_results: { ...state.task_results, ...budgetCut, ...outcomes },
      semantic_info: [...state.semantic_info, ...extraInfo],
      execution_path: [...state.execution_path, 'execute'],
    };
  };
}
