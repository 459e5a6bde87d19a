/**
 * The plan a model drafts (seed 003 `task_plan`, docs/api.md#model-replies): its JSON Schema,
 * the shape it has once checked, and the envelope that carries it to the planner.
 *
 * The draft is planning's input, so planning owns its shape. The LLM recogniser
 * asks for it in the same model call as the intents (one call, not two) and
 * checks it against this schema where the reply is parsed; the planner takes it
 * as typed and only checks it against the registry and the user's words.
 */

/** One drafted sub-task (seed 003 `sub_tasks[]`; `task_id` and `status` optional). */
export const DRAFT_SUB_TASK_SCHEMA = {
  type: 'object',
  required: ['assigned_agent', 'description', 'inputs', 'dependencies'],
  properties: {
    task_id: { type: 'string' },
    description: { type: 'string' },
    assigned_agent: { type: 'string', minLength: 1 },
    inputs: { type: 'object' },
    dependencies: { type: 'array', items: { type: 'string' } },
    status: { type: 'string' },
  },
} as const;

/** The drafted `task_plan` (seed 003; only `sub_tasks` is required of the model). */
export const TASK_PLAN_DRAFT_SCHEMA = {
  type: 'object',
  required: ['sub_tasks'],
  properties: {
    plan_id: { type: 'string' },
    task_type: { type: 'string', enum: ['sequential', 'parallel', 'mixed'] },
    sub_tasks: { type: 'array', maxItems: 50, items: DRAFT_SUB_TASK_SCHEMA },
    reasoning: { type: 'string' },
    total_tasks: { type: 'integer' },
    missing_semantic_keys: { type: 'array', items: { type: 'string' } },
    user_friendly_message: { type: 'string' },
  },
} as const;

/** A drafted sub-task as validated by `DRAFT_SUB_TASK_SCHEMA`. */
export interface DraftSubTask {
  task_id?: string;
  description: string;
  assigned_agent: string;
  inputs: Record<string, unknown>;
  dependencies: string[];
  status?: string;
}

/** A drafted plan as validated by `TASK_PLAN_DRAFT_SCHEMA`. */
export interface DraftTaskPlan {
  plan_id?: string;
  task_type?: 'sequential' | 'parallel' | 'mixed';
  sub_tasks: DraftSubTask[];
  reasoning?: string;
  total_tasks?: number;
  missing_semantic_keys?: string[];
  user_friendly_message?: string;
}

/**
 * What the recognizer puts on `IntentResult.draftPlan`: the drafted plan,
 * validated against `TASK_PLAN_DRAFT_SCHEMA` where the model reply was parsed
 * (the planner takes it as typed and only checks it against the registry),
 * and the user's own words of this turn (the planner checks key values
 * against them, since the plan request only carries the rewritten query).
 */
export interface DraftPlanEnvelope {
  query: string;
  task_plan: DraftTaskPlan;
}
