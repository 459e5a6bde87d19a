/**
 * The boundary between the HTTP layer and the supervisor: one user turn.
 */
import type { ResponseState } from './response-state.js';

export interface TurnRequest {
  query: string;
  userId: string;
  /** Absent: a new session id is generated. */
  sessionId?: string;
  traceId: string;
}

export interface TurnResult {
  sessionId: string;
  finalAnswer: string;
  events: ResponseState[];
}

export interface StartedTurn {
  sessionId: string;
  /** Settles when the turn ends (never rejects: failures end as a final answer + done). */
  done: Promise<TurnResult>;
}

export interface TurnRunner {
  /**
   * Reserves the session and starts the turn. Rejects with a `UserError`
   * (e.g. `TURN_IN_PROGRESS`, `BAD_REQUEST`) before any event is emitted;
   * `onEvent` is only called after this promise resolved.
   */
  start(request: TurnRequest, options: { signal: AbortSignal; onEvent: (event: ResponseState) => void }): Promise<StartedTurn>;
}
