/**
 * The outgoing event type (docs/api.md#events; `schemas/response-state.schema.json`). Separate from the
 * internal graph state on purpose: nothing internal leaks unless copied here.
 */
import type { ConfirmationRequest } from './plan-types.js';
import type { Clarification } from '../intent/index.js';

export type Stage =
  | 'intent_start'
  | 'intent_done'
  | 'plan_start'
  | 'plan_done'
  | 'agent_start'
  | 'agent_stream'
  | 'agent_done'
  | 'agent_failed'
  | 'summarize_start'
  | 'final'
  | 'escalate'
  | 'verify_start'
  | 'verify_done'
  | 'done';

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
