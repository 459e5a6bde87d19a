/**
 * The outgoing event type (docs/api.md#events; `schemas/response-state.schema.json`). Separate from the
 * internal graph state on purpose: nothing internal leaks unless copied here. Only this room defines it.
 */
import { readFileSync } from 'node:fs';
import { packageFileUrl } from '../util/index.js';
import type { Stage } from './stages.js';

/** Keys still needed by one parked sub-task; the four arrays are index-aligned. */
export interface SemanticInfo {
  type: 'miss' | 'invalid';
  sub_agent_id: string;
  keys: string[];
  key_descriptions: string[];
  fe_widgets_suggestion: string[];
  /** Allowed values per key (an enum key's values), `[]` for free input. */
  key_options: string[][];
}

/**
 * A side-effect sub-task waiting for the user's yes (docs/api.md#conversation-rules
 * `metadata.confirmation`). `summary` is user-facing; `sub_agent_id` is for
 * the front end and never goes into event content.
 */
export interface ConfirmationRequest {
  task_id: string;
  sub_agent_id: string;
  summary: string;
  inputs: Record<string, unknown>;
}

/** One option of a clarification (contract v4): `sub_agent_id` is for the front end, never in content. */
export interface ClarificationOption {
  option_id: string;
  sub_agent_id: string;
  /** User-facing, in the query's language: the agent's name and a few words of what it does. */
  label: string;
}

/** `metadata.clarification` of `plan_done` and `final`: the turn asks which agent is meant instead of guessing. */
export interface Clarification {
  options: ClarificationOption[];
}

/** One event of a turn: one SSE `data:` frame of `POST /v1/chat`, or one element of its JSON `events`. */
export interface ResponseState {
  type: 'content' | 'done';
  content: string;
  agent_id: string;
  is_thinking: boolean;
  session_id: string;
  metadata: {
    stage: Stage;
    /** Position of this event in the turn's stream, from 1. */
    seq: number;
    /** The turn this event belongs to; the SSE id is `<turn_id>:<seq>`. */
    turn_id?: string;
    semantic_info?: SemanticInfo[];
    /** Side-effect tasks held until the user confirms them (plan_done and final). */
    confirmation?: ConfirmationRequest[];
    /** The options a turn offers instead of guessing which agent is meant (plan_done and final; contract v4). */
    clarification?: Clarification;
    state?: Record<string, unknown>;
  };
}

/** The JSON Schema of `ResponseState` (`schemas/response-state.schema.json`, served at `GET /v1/schemas/response-state.json`), read afresh. */
export function readResponseStateSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(packageFileUrl('schemas/response-state.schema.json'), 'utf8')) as Record<string, unknown>;
}
