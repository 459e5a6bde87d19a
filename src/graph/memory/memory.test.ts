import { describe, expect, it } from 'vitest';
import { snapshotOf, travelCards } from '../../../test/support/registry-fixtures.js';
import type { MemoryTurn } from '../../intent/types.js';
import type { AgentCard } from '../../registry/types.js';
import { memoryAfterBusinessTurn, rememberTurn } from './memory.js';
import type { SubTask, TaskOutcome, TaskStatus } from '../../planning/plan-types.js';
import { emptyMemory, MEMORY_SCHEMA_VERSION, type SessionMemory } from '../state.js';

const [hotel, limo, , weather] = travelCards() as [AgentCard, AgentCard, AgentCard, AgentCard];
const snapshot = snapshotOf([hotel, limo, weather]);

function turn(query: string, answer = `answer to ${query}`): MemoryTurn {
  return { query, rewrittenQuery: query, answer, agents: [] };
}

function subTask(taskId: string, agentId: string, inputs: Record<string, unknown>, status: TaskStatus = 'pending'): SubTask {
  return { task_id: taskId, description: `${agentId} task`, assigned_agent: agentId, inputs, dependencies: [], status };
}

function outcome(task: SubTask, status: TaskStatus, extra: Partial<TaskOutcome> = {}): TaskOutcome {
  return { task_id: task.task_id, agent_id: task.assigned_agent, status, ...extra };
}

/** Outcomes keyed by task id, the way the summarize node passes them (parked tasks included). */
function outcomesOf(...entries: TaskOutcome[]): Record<string, TaskOutcome> {
  return Object.fromEntries(entries.map((entry) => [entry.task_id, entry]));
}

function after(memory: SessionMemory, tasks: SubTask[], outcomes: Record<string, TaskOutcome>): SessionMemory {
  return memoryAfterBusinessTurn({ memory, turn: turn('this turn'), tasks, outcomes, snapshot });
}

describe('rememberTurn', () => {
  it('appends the turn and keeps only the last `limit` turns', () => {
    let memory = emptyMemory();
    for (const query of ['one', 'two', 'three', 'four']) memory = { ...memory, history: rememberTurn(memory, turn(query), 3) };
    expect(memory.history.map((entry) => entry.query)).toEqual(['two', 'three', 'four']);
  });

  it('keeps at least the newest turn when the limit is zero', () => {
    const memory = { ...emptyMemory(), history: [turn('old')] };
    expect(rememberTurn(memory, turn('new'), 0).map((entry) => entry.query)).toEqual(['new']);
  });

  it('shortens a long answer and leaves the given memory alone', () => {
    const memory = { ...emptyMemory(), history: [turn('old')] };
    const history = rememberTurn(memory, turn('new', '好'.repeat(2000)), 5);
    expect(history[1]!.answer.length).toBe(600);
    expect(memory.history).toHaveLength(1);
  });
});

describe('memoryAfterBusinessTurn', () => {
  it('carries parked and input-required tasks to the next turn, with the keys still needed', () => {
    const parkedHotel = subTask('t1', 'hotel_agent', { city: '北京' }, 'parked');
    const askingLimo = subTask('t2', 'limo_agent', { airport: '首都机场' });
    const doneWeather = subTask('t3', 'weather_agent', { city: '北京' });
    const memory = after(
      { ...emptyMemory(), pending: [{ agent_id: 'weather_agent', description: 'old', inputs: {}, missing_keys: ['city'] }] },
      [parkedHotel, askingLimo, doneWeather],
      outcomesOf(outcome(parkedHotel, 'parked'), outcome(askingLimo, 'input_required', { missing_keys: ['pickup_time'] }), outcome(doneWeather, 'completed')),
    );
    expect(memory.pending).toEqual([
      { task_id: 't1', agent_id: 'hotel_agent', description: 'hotel_agent task', inputs: { city: '北京' }, missing_keys: ['check_in_date'], parked_at: expect.any(String) },
      { task_id: 't2', agent_id: 'limo_agent', description: 'limo_agent task', inputs: { airport: '首都机场' }, missing_keys: ['pickup_time'], parked_at: expect.any(String) },
    ]);
    expect(memory.pending[0]!.inputs).not.toBe(parkedHotel.inputs);
  });

  it('carries a task parked behind another one with no keys of its own to give', () => {
    const waiting = subTask('t2', 'limo_agent', { airport: '首都机场', pickup_time: '早上7点' }, 'parked');
    const memory = after(emptyMemory(), [waiting], outcomesOf(outcome(waiting, 'parked')));
    expect(memory.pending).toEqual([
      { task_id: 't2', agent_id: 'limo_agent', description: 'limo_agent task', inputs: waiting.inputs, missing_keys: [], parked_at: expect.any(String) },
    ]);
  });

  it('takes the parked status from the task when no outcome is given', () => {
    const parkedHotel = subTask('t1', 'hotel_agent', {}, 'parked');
    const memory = after(emptyMemory(), [parkedHotel], {});
    expect(memory.pending.map((task) => task.missing_keys)).toEqual([['city', 'check_in_date']]);
  });

  it('remembers only valid key values, newest value winning', () => {
    const hotelTask = subTask('t1', 'hotel_agent', { city: '上海', check_in_date: '2026-02-30' });
    const limoTask = subTask('t2', 'limo_agent', { airport: '某个机场', pickup_time: '早上7点' });
    const memory = after(
      { ...emptyMemory(), known_values: { city: '北京', check_in_date: '2026-11-23' } },
      [hotelTask, limoTask],
      outcomesOf(outcome(hotelTask, 'completed'), outcome(limoTask, 'completed')),
    );
    expect(memory.known_values).toEqual({ city: '上海', check_in_date: '2026-11-23', pickup_time: '早上7点' });
  });

  it('keeps at most 50 known values, dropping the oldest', () => {
    const known = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`key_${index}`, index]));
    const hotelTask = subTask('t1', 'hotel_agent', { city: '北京' });
    const memory = after({ ...emptyMemory(), known_values: known }, [hotelTask], outcomesOf(outcome(hotelTask, 'completed')));
    const keys = Object.keys(memory.known_values);
    expect(keys).toHaveLength(50);
    expect(keys).not.toContain('key_0');
    expect(memory.known_values.city).toBe('北京');
  });

  it.each<[string, TaskStatus[], number]>([
    ['any task completed', ['completed', 'failed', 'parked'], 0],
    ['only failures', ['failed', 'skipped'], 3],
    ['a failure beside a parked task', ['failed', 'parked'], 3],
    ['only parked tasks', ['parked', 'parked'], 2],
    ['an input-required task only', ['input_required'], 2],
    ['no task at all', [], 2],
  ])('unresolved turns after %s', (_label, statuses, expected) => {
    const tasks = statuses.map((status, index) => subTask(`t${index}`, 'weather_agent', {}, status === 'parked' ? 'parked' : 'pending'));
    const outcomes = outcomesOf(...tasks.map((task, index) => outcome(task, statuses[index]!)));
    expect(after({ ...emptyMemory(), unresolved_turns: 2 }, tasks, outcomes).unresolved_turns).toBe(expected);
  });

  it('adds the turn to the history bounded by memory_max_history, and keeps the schema version', () => {
    const history = ['a', 'b', 'c', 'd', 'e'].map((query) => turn(query));
    const memory = after({ ...emptyMemory(), history }, [], {});
    expect(snapshot.supervisor.memoryMaxHistory).toBe(5);
    expect(memory.history.map((entry) => entry.query)).toEqual(['b', 'c', 'd', 'e', 'this turn']);
    expect(memory.schema_version).toBe(MEMORY_SCHEMA_VERSION);
  });

  it('ignores tasks of agents no longer in the registry', () => {
    const orphan = subTask('t1', 'gone_agent', { city: '北京' }, 'parked');
    const memory = after(emptyMemory(), [orphan], outcomesOf(outcome(orphan, 'parked')));
    expect(memory.pending).toEqual([]);
    expect(memory.known_values).toEqual({});
  });
});
