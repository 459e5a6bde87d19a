/**
 * The planner interface. The offline planner and the LLM planner both
 * implement it; the plan node only sees `Planner`.
 */
import type { IntentResult, QueryReading, RankedIntent } from '../../intent/index.js';
import type { LlmUsage } from '../../llm/types.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import type { InvalidKey, TaskPlan } from '../plan-types.js';
import type { SessionMemory } from '../state.js';

export interface PlanRequest {
  /** The rewritten query. */
  query: string;
  /** What the user typed this turn (the rewritten query may start with earlier turns' words). */
  turnQuery?: string;
  /** The turn's one reading of the user's message (its clauses are not split again). */
  reading?: QueryReading;
  intents: readonly RankedIntent[];
  /** The whole intent result (an LLM recognizer may have drafted the plan in the same call). */
  intent?: IntentResult;
  snapshot: RegistrySnapshot;
  memory: SessionMemory;
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
