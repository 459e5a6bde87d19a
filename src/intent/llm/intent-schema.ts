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

// The plan part of the reply is planning's schema; planning reads what comes back (`planning/draft-reader.ts`).
import { TASK_PLAN_DRAFT_SCHEMA } from '../../planning/index.js';

/** `simple_kind` values the model may give (the offline recognizer's kinds). */
export const SIMPLE_KINDS = ['greeting', 'thanks', 'capabilities', 'out_of_scope', 'sensitive', 'abusive'] as const;

/**
 * The whole reply of the intent call. Only the fields of the intent reply in
 * docs/api.md#model-replies are required: a reply without `kind` is read as business when it names
 * enabled capabilities and as out of scope otherwise. Or (contract v4) `{ clarify: [agent ids], reason }`:
 * 1 to 3 candidates the user is asked to choose between.
 */
export const INTENT_REPLY_SCHEMA = {
  type: 'object',
  anyOf: [{ required: ['intent', 'confidence', 'rewritten_query', 'user_friendly_message'] }, { required: ['clarify'] }],
  properties: {
    clarify: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
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

/** A clarification reply (contract v4 §4): the candidate agents, best first. */
export interface ClarifyReply {
  clarify: string[];
  reason?: string;
}

/** The intent call's reply as validated by `INTENT_REPLY_SCHEMA` (a `ClarifyReply` is told apart first). */
export interface IntentReply {
  kind?: 'business' | 'simple' | 'escalate';
  simple_kind?: (typeof SIMPLE_KINDS)[number];
  intent: string[];
  confidence: 'high' | 'medium' | 'low';
  reason?: string;
  rewritten_query: string;
  user_friendly_message: string;
  answer?: string;
  memory_summary?: string;
}

/**
 * The reply as the first check sees it: every intent field validated, the
 * plan draft not (planning checks it: a broken draft only drops the draft, never the intent).
 */
export type UncheckedIntentReply = IntentReply & { task_plan?: unknown };
