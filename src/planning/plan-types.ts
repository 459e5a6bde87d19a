/**
 * The task plan (seed 003 / docs/api.md#model-replies). Field names are snake_case because
 * this is also the JSON shape the LLM planner returns and the event metadata shows.
 */

import type { ValueSource } from '../store/index.js';

export type TaskType = 'sequential' | 'parallel' | 'mixed';

/**
 * pending → running → completed | failed | input_required;
 * parked: held back before dispatch (missing/invalid keys, or waits on a parked task);
 * skipped: a dependency failed;
 * awaiting_confirmation: a side-effect task with every key, held until the user confirms it.
 */
export type TaskStatus = 'pending' | 'parked' | 'running' | 'completed' | 'failed' | 'skipped' | 'input_required' | 'awaiting_confirmation';

export interface SubTask {
  task_id: string;
  description: string;
  assigned_agent: string;
  inputs: Record<string, unknown>;
  /** Where each input value came from (set by the semantic check; the dispatcher sends no input without one). */
  sources?: Record<string, ValueSource>;
  dependencies: string[];
  status: TaskStatus;
}

export interface TaskPlan {
  plan_id: string;
  task_type: TaskType;
  sub_tasks: SubTask[];
  reasoning: string;
  total_tasks: number;
  /** Keys still missing across the plan, as `key` names (details go to `semantic_info`). */
  missing_semantic_keys: string[];
  user_friendly_message: string;
}

/** A key value that was present in the text but failed extraction or validation. */
export interface InvalidKey {
  key: string;
  raw: string;
  reason: string;
  /** The values the user gave when the key was given several and one task cannot take them all (planning/several-values.ts). */
  several?: string[];
}

/** What happened to one sub-task in this turn. */
export interface TaskOutcome {
  task_id: string;
  agent_id: string;
  status: TaskStatus;
  /** User-facing text from the agent, when it sent one. */
  message?: string;
  output?: Record<string, unknown>;
  /** Failure code (`timeout`, `dependency`, `agent_failed`, ...) when it did not complete. */
  reason?: string;
  /** Technical detail of the failure (logs and event metadata, never event content). */
  detail?: string;
  missing_keys?: string[];
  duration_ms?: number;
  attempts?: number;
  /** True when the reply came from the response cache (the agent was not called). */
  cached?: boolean;
  /** Served from cache because the call failed (`stale_if_error_s`). */
  stale?: boolean;
}
