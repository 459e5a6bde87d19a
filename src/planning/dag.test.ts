import { describe, expect, it } from 'vitest';
import { classifyTaskType, dependentsOf, findCycle, topologicalOrder } from './dag.js';

/** A dependency-only task: `node('b', 'a')` is task b depending on a. */
function node(taskId: string, ...dependencies: string[]) {
  return { task_id: taskId, dependencies };
}

describe('classifyTaskType', () => {
  it.each([
    ['no task', [], 'sequential'],
    ['one task', [node('a')], 'sequential'],
    ['two independent tasks', [node('a'), node('b')], 'parallel'],
    ['three independent tasks', [node('a'), node('b'), node('c')], 'parallel'],
    ['a chain of two', [node('a'), node('b', 'a')], 'sequential'],
    ['a chain of three listed out of order', [node('c', 'b'), node('a'), node('b', 'a')], 'sequential'],
    ['a fan-out (two tasks wait on one)', [node('a'), node('b', 'a'), node('c', 'a')], 'mixed'],
    ['a fan-in (one task waits on two)', [node('a'), node('b'), node('c', 'a', 'b')], 'mixed'],
    ['a chain beside an independent task', [node('a'), node('b', 'a'), node('c')], 'mixed'],
  ] as const)('%s → %s', (_label, tasks, expected) => {
    expect(classifyTaskType(tasks.map((task) => ({ ...task, dependencies: [...task.dependencies] })))).toBe(expected);
  });
});

describe('findCycle', () => {
  it('returns null for an acyclic graph', () => {
    expect(findCycle([node('a'), node('b', 'a'), node('c', 'a', 'b')])).toBeNull();
    expect(findCycle([])).toBeNull();
  });

  it('reports a two-task cycle as a closed path', () => {
    const cycle = findCycle([node('a', 'b'), node('b', 'a')]);
    expect(cycle).not.toBeNull();
    expect(cycle![0]).toBe(cycle![cycle!.length - 1]);
    expect(new Set(cycle)).toEqual(new Set(['a', 'b']));
  });

  it('reports a self-dependency', () => {
    expect(findCycle([node('x'), node('a', 'a')])).toEqual(['a', 'a']);
  });

  it('reports only the tasks on the cycle, not the tasks leading to it', () => {
    const cycle = findCycle([node('entry', 'b'), node('b', 'c'), node('c', 'd'), node('d', 'b')]);
    expect(cycle).toEqual(['b', 'c', 'd', 'b']);
  });

  it('ignores dependencies on unknown task ids', () => {
    expect(findCycle([node('a', 'ghost'), node('b', 'a')])).toBeNull();
  });
});

describe('topologicalOrder', () => {
  it('puts every dependency before its dependent', () => {
    const tasks = [node('d', 'b', 'c'), node('c', 'a'), node('b', 'a'), node('a')];
    const order = topologicalOrder(tasks).map((task) => task.task_id);
    expect(order).toHaveLength(4);
    for (const task of tasks) {
      for (const dependency of task.dependencies) expect(order.indexOf(dependency)).toBeLessThan(order.indexOf(task.task_id));
    }
  });

  it('keeps the given order when nothing forces a change', () => {
    expect(topologicalOrder([node('x'), node('y'), node('z')]).map((task) => task.task_id)).toEqual(['x', 'y', 'z']);
    expect(topologicalOrder([node('a'), node('c'), node('b', 'a')]).map((task) => task.task_id)).toEqual(['a', 'c', 'b']);
  });

  it('returns the same task objects and leaves the input array alone', () => {
    const tasks = [node('b', 'a'), node('a')];
    const ordered = topologicalOrder(tasks);
    expect(ordered[0]).toBe(tasks[1]);
    expect(ordered[1]).toBe(tasks[0]);
    expect(tasks.map((task) => task.task_id)).toEqual(['b', 'a']);
  });

  it('ignores unknown dependency ids', () => {
    expect(topologicalOrder([node('a', 'ghost'), node('b')]).map((task) => task.task_id)).toEqual(['a', 'b']);
  });
});

describe('dependentsOf', () => {
  const tasks = [node('a'), node('b', 'a'), node('c', 'b'), node('d'), node('e', 'd', 'c')];

  it('finds direct and transitive dependents, roots excluded', () => {
    expect(dependentsOf(tasks, ['a'])).toEqual(new Set(['b', 'c', 'e']));
    expect(dependentsOf(tasks, ['d'])).toEqual(new Set(['e']));
    expect(dependentsOf(tasks, ['e'])).toEqual(new Set());
    expect(dependentsOf(tasks, [])).toEqual(new Set());
  });

  it('excludes every root even when one root depends on another', () => {
    expect(dependentsOf(tasks, ['a', 'c'])).toEqual(new Set(['b', 'e']));
  });

  it('accepts a one-shot iterable of roots', () => {
    const roots = new Set(['a']).values();
    expect(dependentsOf(tasks, roots)).toEqual(new Set(['b', 'c', 'e']));
  });
});
