/**
 * The record of one finished turn (`StoredTurnRecord`, src/store/types.ts),
 * built from what the turn already has in memory — the events it sent with
 * the time each left, its model and sub-agent calls — and written with the
 * turn's end in the same storage write, whether or not anyone reads it. Its
 * stages pair each `*_start` event with the event that ends it; its plan is
 * the last `plan_done`'s; each call pairs an `agent_start` with the
 * `agent_done` / `agent_failed` of the same task, carrying the values its task
 * was sent with their sources. Personal data is masked by the storage it is
 * written to, like the transcript.
 */
import { isCompleteFinal, stageRow, type ResponseState } from '../events/index.js';
import type { AgentCallRecord, ValueSource } from '../graph/index.js';
import type { SubTask, TaskPlan } from '../planning/index.js';
import { spannedWords, type MessageReading } from '../understanding/index.js';
import type { RecordedCall, RecordedInput, RecordedStage, RecordedTask, RecordedValueSource, RecordedVerdict, StoredTurnRecord, TurnUsage } from '../store/index.js';

/** What the record is made from. */
export interface TurnRecordParts {
  turnId: string;
  sessionId: string;
  owner: string;
  traceId: string;
  /** When the turn started (epoch ms). */
  startedAt: number;
  query: string;
  /** The turn's reading of `query` (where this turn's value spans point). */
  message?: MessageReading;
  answer: string;
  outcome: string;
  durationMs: number;
  registryVersion: string;
  /** This turn's number as value sources count turns, when the turn sourced inputs. */
  sessionTurn?: number;
  /** Every event the turn sent, and the offset (ms from `startedAt`) at which each was sent. */
  events: readonly ResponseState[];
  offsets: readonly number[];
  timings: Record<string, number>;
  usage: TurnUsage;
  agentCalls: readonly AgentCallRecord[];
}

/** Builds the record of a finished turn. */
export function buildTurnRecord(parts: TurnRecordParts): StoredTurnRecord {
  const { events, offsets } = parts;
  const plan = lastPlan(events);
  const planTasks = plan ? plan.sub_tasks.map((task) => recordedTask(task, parts)) : [];
  const calls = recordedCalls(parts, new Map(planTasks.map((task) => [task.task_id, task])));
  const agents = [...new Set([...planTasks.map((task) => task.agent_id), ...calls.map((call) => call.agent_id)])];
  const verify = verdictOf(events);
  return {
    turn_id: parts.turnId,
    session_id: parts.sessionId,
    user_id: parts.owner,
    trace_id: parts.traceId,
    at: new Date(parts.startedAt).toISOString(),
    outcome: parts.outcome,
    duration_ms: parts.durationMs,
    agents,
    usage: parts.usage,
    registry_version: parts.registryVersion,
    ...(parts.sessionTurn !== undefined ? { session_turn: parts.sessionTurn } : {}),
    query: parts.query,
    answer: parts.answer,
    stages: recordedStages(events, offsets, calls),
    timings_ms: { ...parts.timings },
    ...(plan ? { plan: { plan_id: plan.plan_id, task_type: plan.task_type, tasks: planTasks } } : {}),
    calls,
    ...(verify ? { verify } : {}),
  };
}

/** The last plan the turn showed (`plan_done`'s `task_plan`). */
function lastPlan(events: readonly ResponseState[]): TaskPlan | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    const plan = event.metadata.stage === 'plan_done' ? event.metadata.state?.task_plan : undefined;
    if (plan && typeof plan === 'object' && Array.isArray((plan as TaskPlan).sub_tasks)) return plan as TaskPlan;
  }
  return undefined;
}

/** A task's inputs with their sources; a `user` source of this turn gets this turn's id and the words it points at. */
function recordedInputs(task: SubTask, parts: TurnRecordParts): RecordedInput[] {
  return Object.entries(task.inputs).map(([key, value]) => {
    const source = task.sources?.[key];
    return { key, value, ...(source ? { source: recordedSource(source, parts) } : {}) };
  });
}

function recordedSource(source: ValueSource, parts: TurnRecordParts): RecordedValueSource {
  if (source.kind !== 'user') return { ...source };
  if (source.turn !== parts.sessionTurn) return { ...source };
  // Spans are offsets into the message's normal form (understanding/value-spans.ts): read back from its reading.
  return { ...source, turn_id: parts.turnId, words: spannedWords(parts.message ?? parts.query, source) };
}

function recordedTask(task: SubTask, parts: TurnRecordParts): RecordedTask {
  return {
    task_id: task.task_id,
    agent_id: task.assigned_agent,
    description: task.description,
    dependencies: [...task.dependencies],
    status: task.status,
    inputs: recordedInputs(task, parts),
  };
}

/** Pairs each call's start with its end; the remote calls' own times come from the dispatcher's records. */
function recordedCalls(parts: TurnRecordParts, tasks: ReadonlyMap<string, RecordedTask>): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const open = new Map<string, RecordedCall>();
  // A verify retry is sent as `<task>_verify_<n>`: it belongs to its plan task.
  const remote = [...parts.agentCalls];
  const takeRemote = (taskId: string): AgentCallRecord | undefined => {
    const at = remote.findIndex((call) => call.task_id === taskId || call.task_id.startsWith(`${taskId}_verify_`));
    return at < 0 ? undefined : remote.splice(at, 1)[0];
  };
  parts.events.forEach((event, index) => {
    const stage = event.metadata.stage;
    if (stage !== 'agent_start' && stage !== 'agent_done' && stage !== 'agent_failed') return;
    const state = event.metadata.state ?? {};
    const taskId = typeof state.task_id === 'string' ? state.task_id : '';
    const at = parts.offsets[index] ?? 0;
    if (stage === 'agent_start') {
      const call: RecordedCall = { task_id: taskId, agent_id: event.agent_id, start_ms: at, end_ms: at, status: 'running', inputs: sentInputs(tasks.get(taskId)) };
      open.set(taskId, call);
      calls.push(call);
      return;
    }
    let call = open.get(taskId);
    open.delete(taskId);
    if (!call) {
      // Ended without a start: a task refused before it was sent (its agent left the registry, say).
      call = { task_id: taskId, agent_id: event.agent_id, start_ms: at, end_ms: at, status: 'running', inputs: [] };
      calls.push(call);
    }
    call.end_ms = at;
    if (stage === 'agent_failed') {
      call.status = 'failed';
      if (typeof state.code === 'string') call.code = state.code;
    } else {
      call.status = typeof state.status === 'string' ? state.status : 'completed';
      if (state.cached === true) call.cached = true;
    }
    if (call.cached !== true || state.stale === true) {
      const made = takeRemote(taskId);
      if (made) call.ms = made.ms;
    }
  });
  return calls;
}

/** The values a task was sent: those with a source (the dispatcher sends no other). */
function sentInputs(task: RecordedTask | undefined): RecordedInput[] {
  return task ? task.inputs.filter((input) => input.source !== undefined) : [];
}

/**
 * Each section of the stage table (`events/stages.ts`) from the event that opens it to the one that
 * closes it (the complete answer closes `summarize`, shown as `answer`); `execute` spans the calls;
 * an answer with no summary step and an escalation are moments.
 */
function recordedStages(events: readonly ResponseState[], offsets: readonly number[], calls: readonly RecordedCall[]): RecordedStage[] {
  const stages: RecordedStage[] = [];
  const open = new Map<string, number>();
  events.forEach((event, index) => {
    const section = stageRow(event.metadata.stage)?.section;
    if (!section || section.name === 'agent') return;
    if (event.metadata.stage === 'final' && !isCompleteFinal(event)) return;
    const at = offsets[index] ?? 0;
    const name = section.name === 'summarize' ? 'answer' : section.name;
    if (section.edge === 'open') {
      if (!open.has(name)) open.set(name, at);
      return;
    }
    stages.push({ stage: name, start_ms: open.get(name) ?? at, end_ms: at });
    open.delete(name);
  });
  for (const [name, at] of open) stages.push({ stage: name, start_ms: at, end_ms: at });
  if (calls.length > 0) {
    stages.push({ stage: 'execute', start_ms: Math.min(...calls.map((call) => call.start_ms)), end_ms: Math.max(...calls.map((call) => call.end_ms)) });
  }
  const escalated = events.findIndex((event) => event.metadata.stage === 'escalate');
  if (escalated >= 0) stages.push({ stage: 'escalate', start_ms: offsets[escalated] ?? 0, end_ms: offsets[escalated] ?? 0 });
  return stages.sort((a, b) => a.start_ms - b.start_ms);
}

/** The verify step's verdict (`verify_done`'s state), if the turn verified. */
function verdictOf(events: readonly ResponseState[]): RecordedVerdict | undefined {
  const done = events.find((event) => event.metadata.stage === 'verify_done')?.metadata.state;
  if (!done || typeof done.sufficient !== 'boolean') return undefined;
  const missing = Array.isArray(done.missing) ? (done.missing as { task_id: string; reason: string }[]) : undefined;
  return {
    sufficient: done.sufficient,
    judged: done.judged === true,
    retried: Array.isArray(done.retried) ? (done.retried as string[]) : [],
    rounds: typeof done.rounds === 'number' ? done.rounds : 0,
    ...(missing ? { missing } : {}),
  };
}
