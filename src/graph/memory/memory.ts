/**
 * Short-term memory updates at the end of a turn: bounded history, parked
 * tasks carried to the next turn, slot memory of known key values, and the
 * count of consecutive unresolved turns that drives escalation.
 */
import type { RegistrySnapshot } from '../../registry/index.js';
import type { MemoryTurn } from '../../intent/index.js';
import type { ConfirmationRequest } from '../../events/index.js';
import { checkKeyValue, type SubTask, type TaskOutcome } from '../../planning/index.js';
import type { PendingTask, SessionMemory } from '../state.js';
import { foldTurn } from './layered-summary.js';

const MAX_KNOWN_VALUES = 50;
const MAX_ANSWER_CHARS = 600;

/** Appends a turn, keeping at most `limit` turns. */
export function rememberTurn(memory: SessionMemory, turn: MemoryTurn, limit: number): MemoryTurn[] {
  return appendTurn(memory, turn, limit).history;
}

/**
 * Appends a turn to the verbatim window; a turn that leaves the window is
 * folded into the layered summary (with the model's prose summary when its
 * intent call wrote one).
 */
/** What a parked task keeps of the completed tasks it depends on (`PendingTask.upstream`). */
function upstreamOf(task: SubTask, outcomes: Readonly<Record<string, TaskOutcome>>): Pick<PendingTask, 'upstream'> {
  const upstream = task.dependencies
    .map((id) => outcomes[id])
    .filter((outcome): outcome is TaskOutcome => outcome?.status === 'completed')
    .map((outcome) => ({ task_id: outcome.task_id, agent_id: outcome.agent_id, output: outcome.output ?? {} }));
  return upstream.length > 0 ? { upstream } : {};
}

export function appendTurn(memory: SessionMemory, turn: MemoryTurn, limit: number, modelSummary?: string): Pick<SessionMemory, 'history' | 'summary'> {
  const entry = { ...turn, answer: turn.answer.slice(0, MAX_ANSWER_CHARS) };
  const all = [...memory.history, entry];
  const keep = Math.max(1, limit);
  let summary = memory.summary;
  for (const leaving of all.slice(0, Math.max(0, all.length - keep))) {
    summary = foldTurn(summary, leaving, { facts: memory.known_values, pending: memory.pending }, modelSummary);
  }
  return { history: all.slice(-keep), ...(summary ? { summary } : {}) };
}

/** The memory after a business turn. */
export function memoryAfterBusinessTurn(options: {
  memory: SessionMemory;
  turn: MemoryTurn;
  tasks: readonly SubTask[];
  outcomes: Readonly<Record<string, TaskOutcome>>;
  snapshot: RegistrySnapshot;
  /** The verify step found the results insufficient: the turn is unresolved whatever completed. */
  unresolved?: boolean;
  /** When tasks parked in this turn are stamped (their `pending_ttl_s` counts from it). */
  now?: Date;
  /** Side-effect tasks held for confirmation in this turn. */
  confirmation?: readonly ConfirmationRequest[];
  language?: 'zh' | 'en';
  /** Parked tasks kept as they were (a confirmation turn leaves the ones it did not touch). */
  carried?: readonly PendingTask[];
  /** The model's prose summary covering the turn that leaves the window (LLM mode). */
  modelSummary?: string;
}): SessionMemory {
  const { memory, tasks, outcomes, snapshot } = options;
  const pending: PendingTask[] = [];
  const parkedAt = (options.now ?? new Date()).toISOString();
  const summaryOf = new Map((options.confirmation ?? []).map((request) => [request.task_id, request.summary]));
  const known = { ...memory.known_values };
  const knownSources = { ...(memory.known_sources ?? {}) };
  for (const task of tasks) {
    const card = snapshot.byId.get(task.assigned_agent);
    if (!card) continue;
    for (const spec of card.requiredKeys) {
      const value = task.inputs[spec.key];
      if ((typeof value === 'string' || typeof value === 'number') && checkKeyValue(spec.extract, value) === null) {
        delete known[spec.key];
        known[spec.key] = value;
        // A value is remembered with its source; one without (never sent) is remembered without and must be found again.
        const source = task.sources?.[spec.key];
        if (source) knownSources[spec.key] = source;
        else delete knownSources[spec.key];
      }
    }
    const outcome = outcomes[task.task_id];
    const status = outcome?.status ?? task.status;
    if (status === 'parked' || status === 'input_required' || status === 'awaiting_confirmation') {
      const missing =
        outcome?.missing_keys ?? card.requiredKeys.filter((spec) => checkKeyValue(spec.extract, task.inputs[spec.key]) !== null).map((spec) => spec.key);
      const summary = status === 'awaiting_confirmation' ? summaryOf.get(task.task_id) : undefined;
      pending.push({
        task_id: task.task_id,
        agent_id: card.id,
        description: task.description,
        inputs: { ...task.inputs },
        ...(task.sources ? { sources: { ...task.sources } } : {}),
        missing_keys: missing,
        parked_at: parkedAt,
        ...(summary !== undefined ? { confirmation: { summary, language: options.language ?? 'zh' } } : {}),
        ...upstreamOf(task, outcomes),
      });
    }
  }
  for (const task of options.carried ?? []) if (!pending.some((entry) => entry.agent_id === task.agent_id)) pending.push(task);
  const statuses = Object.values(outcomes).map((outcome) => outcome.status);
  const anyCompleted = statuses.includes('completed');
  const anyFailed = statuses.some((status) => status === 'failed' || status === 'skipped');
  const keys = Object.keys(known);
  for (const key of keys.slice(0, Math.max(0, keys.length - MAX_KNOWN_VALUES))) delete known[key];
  for (const key of Object.keys(knownSources)) if (!(key in known)) delete knownSources[key];
  return {
    ...memory,
    ...appendTurn(memory, options.turn, snapshot.supervisor.memoryMaxHistory, options.modelSummary),
    pending,
    known_values: known,
    known_sources: knownSources,
    unresolved_turns: options.unresolved ? memory.unresolved_turns + 1 : anyCompleted ? 0 : anyFailed ? memory.unresolved_turns + 1 : memory.unresolved_turns,
  };
}
