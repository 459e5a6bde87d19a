/**
 * `budgets.max_subtasks` (docs/api.md#registry-file): a plan with more runnable
 * sub-tasks than the turn may send keeps the first N in plan order, a
 * dependency always counted before the task that needs it, so every kept
 * task can actually run. Tasks that are not sent this turn anyway (parked,
 * awaiting confirmation) do not count.
 */
import type { SubTask } from './plan-types.js';
import { topologicalOrder } from './dag.js';

/** The runnable tasks split into those the budget admits and those it cuts (both in run order). */
export interface SubtaskSelection {
  admitted: SubTask[];
  cut: SubTask[];
}

/** Picks the sub-tasks a turn sends under a budget of `maxSubtasks`. */
export function selectWithinSubtaskBudget(tasks: readonly SubTask[], maxSubtasks: number): SubtaskSelection {
  const runnable = topologicalOrder(tasks.filter((task) => task.status === 'pending'));
  const limit = Math.max(0, Math.floor(maxSubtasks));
  // A prefix of a dependency-first order holds every dependency of each task in it.
  return { admitted: runnable.slice(0, limit), cut: runnable.slice(limit) };
}
