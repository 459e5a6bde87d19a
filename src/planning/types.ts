/**
 * The planner interface. The offline planner and the LLM planner both
 * implement it; the plan node only sees `Planner`.
 */
import type { LlmUsage } from '../llm/index.js';
import type { RegistrySnapshot } from '../registry/index.js';
import type { PendingTask } from '../store/index.js';
import type { QueryReading } from '../understanding/index.js';
import type { DraftSource } from './draft-reader.js';
import type { InvalidKey, TaskPlan } from './plan-types.js';

/** An agent the message asks for, as recognition ranked it (recognisers return these; planners read them). */
export interface RankedIntent {
  agentId: string;
  score: number;
  /** The part of the query this intent was recognised from, when known (a clause of a multi-intent query). */
  clause?: string;
}

/** What a planner reads of the session's short-term memory (the graph's `SessionMemory` is one). */
export interface PlanMemory {
  /** Earlier turns, oldest first: what the user typed in each. */
  history: readonly { query: string }[];
  /** Tasks parked waiting for keys or a yes. */
  pending: readonly PendingTask[];
  /** Slot memory: key → last known value, across agents. */
  known_values: Readonly<Record<string, string | number>>;
}

export interface PlanRequest {
  /** The rewritten query. */
  query: string;
  /** What the user typed this turn (the rewritten query may start with earlier turns' words). */
  turnQuery?: string;
  /**
   * The turn's one reading of the user's words of this turn (`turnQuery`, or the message when there is none): its
   * clauses are not split again.
   */
  reading?: QueryReading;
  /** `query` is the user's words as the recogniser got them, not a rewrite: `reading` is its reading too. */
  queryIsTyped?: boolean;
  intents: readonly RankedIntent[];
  /** The plan an LLM recogniser's model drafted in the same call as the intents, unread (the LLM planner reads it). */
  draft?: DraftSource;
  snapshot: RegistrySnapshot;
  memory: PlanMemory;
  now: Date;
  planId: string;
  signal: AbortSignal;
  usage: LlmUsage;
}

export interface PlanResult {
  plan: TaskPlan;
  /** task_id → keys found in the text but not valid. */
  invalidKeys: Record<string, InvalidKey[]>;
}

export interface Planner {
  plan(request: PlanRequest): Promise<PlanResult>;
}
