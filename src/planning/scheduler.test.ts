import { describe, expect, it } from 'vitest';
import type { SubTask, TaskOutcome, TaskStatus } from './plan-types.js';
import { runTaskGraph, type ScheduleOptions } from './scheduler.js';

function task(taskId: string, dependencies: string[] = [], status: TaskStatus = 'pending'): SubTask {
  return { task_id: taskId, description: taskId, assigned_agent: `${taskId}_agent`, inputs: {}, dependencies, status };
}

function completed(subTask: SubTask, output: Record<string, unknown> = {}): TaskOutcome {
  return { task_id: subTask.task_id, agent_id: subTask.assigned_agent, status: 'completed', output };
}

/** Lets pending callbacks and I/O run (a macrotask turn), so in-flight calls overlap. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Records calls and the largest number of runs in flight at once. */
function recorder(decide: (subTask: SubTask, upstream: TaskOutcome[]) => Promise<TaskOutcome> | TaskOutcome = (subTask) => completed(subTask)) {
  let inFlight = 0;
  const calls: { taskId: string; upstream: TaskOutcome[] }[] = [];
  const finished: string[] = [];
  const skipped: { taskId: string; blockedBy: string }[] = [];
  const state = { maxInFlight: 0 };
  const run: ScheduleOptions['run'] = async (subTask, upstream) => {
    calls.push({ taskId: subTask.task_id, upstream });
    inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    try {
      await yieldTurn();
      await yieldTurn();
      return await decide(subTask, upstream);
    } finally {
      inFlight -= 1;
      finished.push(subTask.task_id);
    }
  };
  const onSkip: NonNullable<ScheduleOptions['onSkip']> = (subTask, blockedBy) => skipped.push({ taskId: subTask.task_id, blockedBy: blockedBy.task_id });
  return { run, onSkip, calls, finished, skipped, state, ran: () => calls.map((call) => call.taskId) };
}

const neverAborted = () => new AbortController().signal;

describe('runTaskGraph', () => {
  it('never has more runs in flight than maxParallel', async () => {
    const tasks = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => task(id));
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), run: probe.run });
    expect(probe.state.maxInFlight).toBe(2);
    expect(Object.values(outcomes).map((outcome) => outcome.status)).toEqual(Array(6).fill('completed'));
  });

  it('runs independent tasks together when the limit allows', async () => {
    const probe = recorder();
    await runTaskGraph({ tasks: ['a', 'b', 'c'].map((id) => task(id)), maxParallel: 8, signal: neverAborted(), run: probe.run });
    expect(probe.state.maxInFlight).toBe(3);
  });

  it('treats a limit below one as one', async () => {
    const probe = recorder();
    await runTaskGraph({ tasks: ['a', 'b', 'c'].map((id) => task(id)), maxParallel: 0, signal: neverAborted(), run: probe.run });
    expect(probe.state.maxInFlight).toBe(1);
    expect(probe.ran()).toEqual(['a', 'b', 'c']);
  });

  it('starts a dependent only after its dependencies completed and hands it their outcomes', async () => {
    const tasks = [task('hotel'), task('weather'), task('limo', ['hotel', 'weather'])];
    const probe = recorder((subTask) => completed(subTask, { from: subTask.task_id }));
    const outcomes = await runTaskGraph({ tasks, maxParallel: 4, signal: neverAborted(), run: probe.run });
    const limoCall = probe.calls.find((call) => call.taskId === 'limo')!;
    expect(limoCall.upstream.map((outcome) => outcome.output)).toEqual([{ from: 'hotel' }, { from: 'weather' }]);
    // Both upstream runs had finished before the dependent was called.
    expect(probe.ran().indexOf('limo')).toBe(2);
    expect(probe.finished.slice(0, 2).sort()).toEqual(['hotel', 'weather']);
    expect(outcomes.limo!.status).toBe('completed');
  });

  it('skips the dependents of a failed task, transitively, but not independent tasks', async () => {
    const tasks = [task('a'), task('b', ['a']), task('c', ['b']), task('d'), task('e', ['d'])];
    const probe = recorder((subTask) =>
      subTask.task_id === 'a' ? { task_id: 'a', agent_id: 'a_agent', status: 'failed', reason: 'timeout' } : completed(subTask),
    );
    const outcomes = await runTaskGraph({ tasks, maxParallel: 4, signal: neverAborted(), run: probe.run, onSkip: probe.onSkip });
    expect(probe.ran().sort()).toEqual(['a', 'd', 'e']);
    expect(outcomes.a!.status).toBe('failed');
    expect(outcomes.b).toEqual({ task_id: 'b', agent_id: 'b_agent', status: 'skipped', reason: 'dependency' });
    expect(outcomes.c).toEqual({ task_id: 'c', agent_id: 'c_agent', status: 'skipped', reason: 'dependency' });
    expect(outcomes.d!.status).toBe('completed');
    expect(outcomes.e!.status).toBe('completed');
    expect(probe.skipped).toEqual([
      { taskId: 'b', blockedBy: 'a' },
      { taskId: 'c', blockedBy: 'b' },
    ]);
  });

  it.each(['input_required', 'skipped'] as const)('skips the dependents of a task that ended %s', async (status) => {
    const tasks = [task('a'), task('b', ['a'])];
    const probe = recorder((subTask) => (subTask.task_id === 'a' ? { task_id: 'a', agent_id: 'a_agent', status } : completed(subTask)));
    const outcomes = await runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), run: probe.run, onSkip: probe.onSkip });
    expect(probe.ran()).toEqual(['a']);
    expect(outcomes.b!.status).toBe('skipped');
    expect(probe.skipped).toEqual([{ taskId: 'b', blockedBy: 'a' }]);
  });

  it.each(['parked', 'failed'] as const)('skips, before dispatch, the dependents of a task already %s', async (status) => {
    const tasks = [task('a', [], status), task('b', ['a']), task('c', ['b']), task('d')];
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), run: probe.run, onSkip: probe.onSkip });
    expect(probe.ran()).toEqual(['d']);
    expect(outcomes.a).toBeUndefined();
    expect(outcomes.b!.status).toBe('skipped');
    expect(outcomes.c!.status).toBe('skipped');
    expect(probe.skipped).toEqual([
      { taskId: 'b', blockedBy: 'a' },
      { taskId: 'c', blockedBy: 'b' },
    ]);
  });

  it('ignores dependencies on task ids that are not in the plan', async () => {
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks: [task('a', ['elsewhere'])], maxParallel: 1, signal: neverAborted(), run: probe.run });
    expect(outcomes.a!.status).toBe('completed');
  });

  it('skips tasks that can never become ready (a cycle) and reports each one', async () => {
    const tasks = [task('a', ['b']), task('b', ['a']), task('c')];
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), run: probe.run, onSkip: probe.onSkip });
    expect(probe.ran()).toEqual(['c']);
    expect(outcomes.a).toMatchObject({ status: 'skipped', reason: 'dependency' });
    expect(outcomes.b).toMatchObject({ status: 'skipped', reason: 'dependency' });
    expect(probe.skipped).toEqual([
      { taskId: 'a', blockedBy: 'b' },
      { taskId: 'b', blockedBy: 'a' },
    ]);
  });

  it('turns a run that rejects into a failed outcome and skips its dependents', async () => {
    const tasks = [task('a'), task('b', ['a']), task('c')];
    const probe = recorder((subTask) => {
      if (subTask.task_id === 'a') throw new Error('socket closed');
      return completed(subTask);
    });
    const outcomes = await runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), run: probe.run, onSkip: probe.onSkip });
    expect(outcomes.a).toMatchObject({ task_id: 'a', agent_id: 'a_agent', status: 'failed' });
    expect(outcomes.a!.reason).toContain('socket closed');
    expect(outcomes.b!.status).toBe('skipped');
    expect(outcomes.c!.status).toBe('completed');
  });

  it('turns a run that throws synchronously into a failed outcome without losing the others', async () => {
    const tasks = [task('a'), task('b')];
    const run: ScheduleOptions['run'] = (subTask) => {
      if (subTask.task_id === 'a') throw new Error('bad input');
      return Promise.resolve(completed(subTask));
    };
    const outcomes = await runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), run });
    expect(outcomes.a).toMatchObject({ status: 'failed' });
    expect(outcomes.a!.reason).toContain('bad input');
    expect(outcomes.b!.status).toBe('completed');
  });

  it('launches nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks: [task('a'), task('b')], maxParallel: 2, signal: controller.signal, run: probe.run });
    expect(probe.ran()).toEqual([]);
    expect(outcomes).toEqual({});
  });

  it('stops launching on abort and waits for the runs in flight', async () => {
    const controller = new AbortController();
    const slow = deferred<TaskOutcome>();
    const tasks = [task('a'), task('b'), task('c'), task('d', ['a'])];
    const calls: string[] = [];
    const run: ScheduleOptions['run'] = async (subTask) => {
      calls.push(subTask.task_id);
      if (subTask.task_id === 'a') {
        controller.abort();
        return completed(subTask);
      }
      return slow.promise;
    };
    let settled = false;
    const result = runTaskGraph({ tasks, maxParallel: 2, signal: controller.signal, run }).then((outcomes) => {
      settled = true;
      return outcomes;
    });
    for (let turn = 0; turn < 5; turn += 1) await yieldTurn();
    expect(settled).toBe(false);
    slow.resolve({ task_id: 'b', agent_id: 'b_agent', status: 'failed', reason: 'aborted' });
    const outcomes = await result;
    expect(calls).toEqual(['a', 'b']);
    expect(outcomes.a!.status).toBe('completed');
    expect(outcomes.b).toMatchObject({ status: 'failed', reason: 'aborted' });
    expect(outcomes.c).toBeUndefined();
    expect(outcomes.d).toBeUndefined();
  });

  it('skips the waiting tasks once the deadline passes, while the running ones end on their own signal', async () => {
    const deadline = new AbortController();
    const tasks = [task('a'), task('b'), task('c'), task('d', ['a'])];
    const calls: string[] = [];
    const deadlineSkips: string[] = [];
    const run: ScheduleOptions['run'] = (subTask) => {
      calls.push(subTask.task_id);
      // Each run ends only when the deadline aborts it (as a sub-agent call does).
      return new Promise((resolve) =>
        deadline.signal.addEventListener('abort', () => resolve({ task_id: subTask.task_id, agent_id: subTask.assigned_agent, status: 'failed', reason: 'max_turn_ms' }), { once: true }),
      );
    };
    const result = runTaskGraph({ tasks, maxParallel: 2, signal: neverAborted(), deadline: deadline.signal, run, onDeadlineSkip: (subTask) => deadlineSkips.push(subTask.task_id) });
    for (let turn = 0; turn < 3; turn += 1) await yieldTurn();
    expect(calls).toEqual(['a', 'b']);
    deadline.abort('max_turn_ms');
    const outcomes = await result;
    expect(calls).toEqual(['a', 'b']);
    expect(outcomes.a).toMatchObject({ status: 'failed', reason: 'max_turn_ms' });
    expect(outcomes.c).toMatchObject({ status: 'skipped', reason: 'max_turn_ms' });
    expect(outcomes.d).toMatchObject({ status: 'skipped', reason: 'max_turn_ms' });
    expect(deadlineSkips.sort()).toEqual(['c', 'd']);
  });

  it('starts nothing when the deadline already passed', async () => {
    const deadline = new AbortController();
    deadline.abort('max_turn_ms');
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks: [task('a'), task('b', ['a'])], maxParallel: 2, signal: neverAborted(), deadline: deadline.signal, run: probe.run });
    expect(probe.ran()).toEqual([]);
    expect(outcomes.a).toMatchObject({ status: 'skipped', reason: 'max_turn_ms' });
    expect(outcomes.b).toMatchObject({ status: 'skipped', reason: 'max_turn_ms' });
  });

  it('is not held up by a deadline that never comes', async () => {
    const probe = recorder();
    const outcomes = await runTaskGraph({ tasks: [task('a'), task('b', ['a'])], maxParallel: 2, signal: neverAborted(), deadline: new AbortController().signal, run: probe.run });
    expect(probe.ran()).toEqual(['a', 'b']);
    expect(outcomes.b!.status).toBe('completed');
  });
});
