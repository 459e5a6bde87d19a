/**
 * The shape of a parked task as the session's saved memory holds it: the
 * graph parks and resumes it, the privacy layer seals its personal values
 * before it is stored, the summary folds it — so it is written here, below
 * all three.
 */

/** Where one input value came from (graph/value-source.ts decides it; the saved memory keeps it). */
export type ValueSource =
  /** The user's text of turn `turn` of the session (1-based), characters `start`..`end` of it. */
  | { kind: 'user'; turn: number; start: number; end: number }
  /** A profile fact the answer shows the user. */
  | { kind: 'profile'; key: string }
  /** The output of an upstream task of the same plan. */
  | { kind: 'upstream'; task_id: string };

/** A sub-task held back last turn, waiting for the user to supply keys or to confirm it. */
export interface PendingTask {
  /** The task id of the plan that parked it; a confirmation names it. */
  task_id?: string;
  agent_id: string;
  description: string;
  /** Inputs already known for it. */
  inputs: Record<string, unknown>;
  /** Where each of those inputs came from (absent in memory saved before sources were kept). */
  sources?: Record<string, ValueSource>;
  /** Keys the user still has to give (empty when it waits on another pending task). */
  missing_keys: string[];
  /** When it was parked (ISO); it expires `pending_ttl_s` later. */
  parked_at?: string;
  /** Present when the task has every key and waits only for the user's yes (side-effect agents). */
  confirmation?: { summary: string; language: 'zh' | 'en' };
  /**
   * The completed tasks of the plan that parked it which it depends on, with their outputs: sent again as its
   * `upstream` when it runs in a later turn (absent when it depends on none, and in memory saved before).
   */
  upstream?: { task_id: string; agent_id: string; output: Record<string, unknown> }[];
}
