/**
 * The shape of a parked task as the session's saved memory holds it: the
 * graph parks and resumes it, the privacy layer seals its personal values
 * before it is stored, the summary folds it — so it is written here, below
 * all three.
 */

/** A sub-task held back last turn, waiting for the user to supply keys or to confirm it. */
export interface PendingTask {
  /** The task id of the plan that parked it; a confirmation names it. */
  task_id?: string;
  agent_id: string;
  description: string;
  /** Inputs already known for it. */
  inputs: Record<string, unknown>;
  /** Keys the user still has to give (empty when it waits on another pending task). */
  missing_keys: string[];
  /** When it was parked (ISO); it expires `pending_ttl_s` later. */
  parked_at?: string;
  /** Present when the task has every key and waits only for the user's yes (side-effect agents). */
  confirmation?: { summary: string; language: 'zh' | 'en' };
}
