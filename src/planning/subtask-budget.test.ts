import { describe, expect, it } from 'vitest';
import type { SubTask, TaskStatus } from './plan-types.js';
import { selectWithinSubtaskBudget } from './subtask-budget.js';

function task(taskId: string, dependencies: string[] = [], status: TaskStatus = 'pending'): SubTask {
  return { task_id: taskId, description: taskId, assigned_agent: `${taskId}_agent`, inputs: {}, dependencies, status };
}

const ids = (tasks: readonly SubTask[]) => tasks.map((entry) => entry.task_id);

describe('selectWithinSubtaskBudget', () => {
  it('keeps every task when the plan is within the budget', () => {
    const selection = selectWithinSubtaskBudget([task('a'), task('b')], 2);
    expect(ids(selection.admitted)).toEqual(['a', 'b']);
    expect(selection.cut).toEqual([]);
  });

  it('keeps the first N in plan order and cuts the rest', () => {
    const selection = selectWithinSubtaskBudget([task('a'), task('b'), task('c'), task('d')], 2);
    expect(ids(selection.admitted)).toEqual(['a', 'b']);
    expect(ids(selection.cut)).toEqual(['c', 'd']);
  });

  it('counts a dependency before the task that needs it, so a kept task can always run', () => {
    // b needs d, which the plan lists last: d is pulled ahead of b, and c drops out.
    const selection = selectWithinSubtaskBudget([task('a'), task('b', ['d']), task('c'), task('d')], 3);
    expect(ids(selection.admitted)).toEqual(['a', 'd', 'b']);
    expect(ids(selection.cut)).toEqual(['c']);
  });

  it('cuts a dependent together with its cut dependency', () => {
    const selection = selectWithinSubtaskBudget([task('a'), task('b'), task('c', ['b'])], 1);
    expect(ids(selection.admitted)).toEqual(['a']);
    expect(ids(selection.cut)).toEqual(['b', 'c']);
  });

  it('does not count tasks that are not sent this turn (parked, awaiting confirmation)', () => {
    const selection = selectWithinSubtaskBudget([task('a', [], 'parked'), task('b', [], 'awaiting_confirmation'), task('c'), task('d')], 2);
    expect(ids(selection.admitted)).toEqual(['c', 'd']);
    expect(selection.cut).toEqual([]);
  });
});
