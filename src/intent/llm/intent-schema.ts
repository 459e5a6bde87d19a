/**
 * JSON shapes the model returns for the single intent + rewrite + plan call
 * (docs/api.md#model-replies, seed 003), as JSON Schemas for the endpoint's structured
 * output and for ajv validation of whatever comes back.
 *
 * The schemas are deliberately loose where looseness is harmless (extra
 * fields are allowed, `inputs` is any object): semantic problems such as an
 * unknown agent or an invented key value are sanitised afterwards, while a
 * reply missing a required field is retried once.
 */

/** `simple_kind` values the model may give (the offline recognizer's kinds). */
export const SIMPLE_KINDS = ['greeting', 'thanks', 'capabilities', 'out_of_scope', 'sensitive', 'abusive'] as const;

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

/**
 * The whole reply of the intent call. Only the fields of the intent reply in
 * docs/api.md#model-replies are required: a reply without `kind` is read as business when it names
 * enabled capabilities and as out of scope otherwise.
 */
export const INTENT_REPLY_SCHEMA = {
  type: 'object',
  required: ['intent', 'confidence', 'rewritten_query', 'user_friendly_message'],
  properties: {
    kind: { type: 'string', enum: ['business', 'simple', 'escalate'] },
    simple_kind: { type: 'string', enum: [...SIMPLE_KINDS] },
    intent: { type: 'array', maxItems: 50, items: { type: 'string' } },
    confidence: { type: 'string', enum: ['high', 'medium', 'low'] },
    reason: { type: 'string' },
    rewritten_query: { type: 'string' },
    user_friendly_message: { type: 'string' },
    answer: { type: 'string' },
    task_plan: TASK_PLAN_DRAFT_SCHEMA,
    memory_summary: { type: 'string', maxLength: 2000 },
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

/** The intent call's reply as validated by `INTENT_REPLY_SCHEMA`. */
export interface IntentReply {
  kind?: 'business' | 'simple' | 'escalate';
  simple_kind?: (typeof SIMPLE_KINDS)[number];
  intent: string[];
  confidence: 'high' | 'medium' | 'low';
  reason?: string;
  rewritten_query: string;
  user_friendly_message: string;
  answer?: string;
  task_plan?: DraftTaskPlan;
  memory_summary?: string;
}

/**
 * The reply as the first check sees it: every intent field validated, the
 * plan draft not yet (a broken draft only drops the draft, never the intent).
 */
export type UncheckedIntentReply = Omit<IntentReply, 'task_plan'> & { task_plan?: unknown };

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
