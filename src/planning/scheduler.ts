/**
 * DAG execution: ready tasks run concurrently up to `maxParallel`; a task runs
 * once all its dependencies completed; a failed, skipped or input-required
 * dependency skips its dependents; a failure never stops independent tasks.
 * Once the turn's deadline passes no further task starts: those still waiting
 * are skipped (reason `max_turn_ms`), and the ones running end as their calls
 * observe the same deadline.
 */
import type { SubTask, TaskOutcome } from './plan-types.js';

export interface ScheduleOptions {
  tasks: readonly SubTask[];
  maxParallel: number;
  signal: AbortSignal;
  /** Runs one task; receives the outcomes of its dependencies. A throw or rejection becomes a `failed` outcome. */
  run: (task: SubTask, upstream: TaskOutcome[]) => Promise<TaskOutcome>;
  /** Called for each task skipped because a dependency did not complete. */
  onSkip?: (task: SubTask, blockedBy: SubTask) => void;
  /** The turn's time budget; once aborted, tasks not yet started are skipped with reason `max_turn_ms`. */
  deadline?: AbortSignal;
  /** Called for each task skipped because the deadline passed before it could start. */
  onDeadlineSkip?: (task: SubTask) => void;
}

/** Runs every `pending` task of the plan; returns outcomes by task id (parked tasks are not included). */
export async function runTaskGraph(options: ScheduleOptions): Promise<Record<string, TaskOutcome>> {
  const outcomes: Record<string, TaskOutcome> = {};
  const byId = new Map(options.tasks.map((task) => [task.task_id, task]));
  const waiting = new Set(options.tasks.filter((task) => task.status === 'pending').map((task) => task.task_id));
  const running = new Map<string, Promise<void>>();
  const limit = Math.max(1, options.maxParallel);

  const settle = (): void => {
    let changed = true;
    while (changed) {
      changed = false;
      for (const id of waiting) {
        const task = byId.get(id)!;
        const blocker = task.dependencies
          .map((dependency) => byId.get(dependency))
          .find((dependency) => dependency && isTerminalFailure(dependency, outcomes));
        if (blocker) {
          waiting.delete(id);
          outcomes[id] = { task_id: id, agent_id: task.assigned_agent, status: 'skipped', reason: 'dependency' };
          options.onSkip?.(task, blocker);
          changed = true;
        }
      }
    }
  };

  const ready = (task: SubTask): boolean =>
    task.dependencies.every((dependency) => !byId.has(dependency) || outcomes[dependency]?.status === 'completed');

  const deadline = options.deadline;
  const deadlinePassed = deadline
    ? new Promise<void>((resolve) => (deadline.aborted ? resolve() : deadline.addEventListener('abort', () => resolve(), { once: true })))
    : undefined;
  const skipForDeadline = (): void => {
    for (const id of waiting) {
      const task = byId.get(id)!;
      outcomes[id] = { task_id: id, agent_id: task.assigned_agent, status: 'skipped', reason: 'max_turn_ms' };
      options.onDeadlineSkip?.(task);
    }
    waiting.clear();
  };

  settle();
  while (waiting.size > 0 || running.size > 0) {
    if (options.signal.aborted) break;
    if (deadline?.aborted) skipForDeadline();
    for (const id of [...waiting]) {
      if (running.size >= limit) break;
      const task = byId.get(id)!;
      if (!ready(task)) continue;
      waiting.delete(id);
      const upstream = task.dependencies.map((dependency) => outcomes[dependency]).filter((outcome): outcome is TaskOutcome => !!outcome);
      // A run that throws before returning its promise still ends as a failed outcome.
      const promise = new Promise<TaskOutcome>((resolve) => resolve(options.run(task, upstream))).then(
        (outcome) => {
          outcomes[id] = outcome;
        },
        (error: unknown) => {
          outcomes[id] = { task_id: id, agent_id: task.assigned_agent, status: 'failed', reason: `internal error: ${String(error)}` };
        },
      );
      running.set(id, promise.finally(() => running.delete(id)));
    }
    if (running.size === 0) {
      if (waiting.size === 0) break;
      // Nothing runnable is left: the rest waits on tasks outside this run.
      for (const id of waiting) {
        const task = byId.get(id)!;
        outcomes[id] = { task_id: id, agent_id: task.assigned_agent, status: 'skipped', reason: 'dependency' };
        const blocker = task.dependencies
          .map((dependency) => byId.get(dependency))
          .find((dependency) => dependency && outcomes[dependency.task_id]?.status !== 'completed');
        if (blocker) options.onSkip?.(task, blocker);
      }
      waiting.clear();
      break;
    }
    // Woken by the deadline too, so waiting tasks are skipped at once rather than after the running ones end.
    await Promise.race(deadlinePassed && !deadline?.aborted ? [...running.values(), deadlinePassed] : running.values());
    if (deadline?.aborted) skipForDeadline();
    settle();
  }
  // On abort, let calls in flight observe the signal and settle before returning.
  await Promise.allSettled(running.values());
  return outcomes;
}

function isTerminalFailure(task: SubTask, outcomes: Record<string, TaskOutcome>): boolean {
  if (task.status === 'parked' || task.status === 'failed') return true;
  const status = outcomes[task.task_id]?.status;
  return status === 'failed' || status === 'skipped' || status === 'input_required' || status === 'parked';
}
