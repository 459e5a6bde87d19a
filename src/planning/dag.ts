/**
 * Dependency handling for task plans: ordering, cycle detection and the
 * sequential / parallel / mixed classification.
 */
import { findCycles } from '../util/index.js';
import type { SubTask, TaskType } from './plan-types.js';

/** sequential: one chain; parallel: no edges; mixed: anything else. */
export function classifyTaskType(tasks: readonly Pick<SubTask, 'task_id' | 'dependencies'>[]): TaskType {
  if (tasks.length <= 1) return 'sequential';
  const edges = tasks.reduce((sum, task) => sum + task.dependencies.length, 0);
  if (edges === 0) return 'parallel';
  const isChain =
    edges === tasks.length - 1 &&
    tasks.every((task) => task.dependencies.length <= 1) &&
    new Set(tasks.flatMap((task) => task.dependencies)).size === tasks.length - 1;
  return isChain ? 'sequential' : 'mixed';
}

/** The ids on a dependency cycle (the first the walk meets), or null. Unknown dependency ids are ignored here. */
export function findCycle(tasks: readonly Pick<SubTask, 'task_id' | 'dependencies'>[]): string[] | null {
  const byId = new Map(tasks.map((task) => [task.task_id, task]));
  return findCycles(byId.keys(), (id) => byId.get(id)?.dependencies ?? [])[0] ?? null;
}

/** Tasks in an order where every dependency comes first (stable otherwise). Assumes no cycle. */
export function topologicalOrder<T extends Pick<SubTask, 'task_id' | 'dependencies'>>(tasks: readonly T[]): T[] {
  const byId = new Map(tasks.map((task) => [task.task_id, task]));
  const placed = new Set<string>();
  const ordered: T[] = [];
  const place = (task: T): void => {
    if (placed.has(task.task_id)) return;
    placed.add(task.task_id);
    for (const dependency of task.dependencies) {
      const upstream = byId.get(dependency);
      if (upstream) place(upstream);
    }
    ordered.push(task);
  };
  tasks.forEach(place);
  return ordered;
}

/** All tasks that (transitively) depend on any of `roots`. */
export function dependentsOf(tasks: readonly Pick<SubTask, 'task_id' | 'dependencies'>[], roots: Iterable<string>): Set<string> {
  // Read the roots once: an iterator cannot be walked a second time to exclude them.
  const rootIds = [...roots];
  const reached = new Set<string>(rootIds);
  let grew = true;
  while (grew) {
    grew = false;
    for (const task of tasks) {
      if (reached.has(task.task_id)) continue;
      if (task.dependencies.some((dependency) => reached.has(dependency))) {
        reached.add(task.task_id);
        grew = true;
      }
    }
  }
  for (const root of rootIds) reached.delete(root);
  return reached;
}
