/**
 * The boundary between the HTTP layer and the supervisor: one user turn. A
 * `TurnRequest` has passed the edge's validation (`http/chat-request.ts`,
 * `id-patterns.ts`): ids match their patterns, `query` is non-empty unless
 * the turn confirms or rejects tasks. The runner does not check it again.
 */
import type { SpanContextRef } from '../trace-context.js';
import type { ResponseState } from '../events/index.js';

export interface TurnRequest {
  query: string;
  userId: string;
  /**
   * The tenant of the caller's API key (absent = the default tenant). The
   * session, its transcript and the user's profile are the user's within this
   * tenant only; sub-agents still receive the plain `userId`.
   */
  tenant?: string;
  /** Absent: a new session id is generated. */
  sessionId?: string;
  traceId: string;
  /** The caller's W3C `traceparent`, continued by the turn's span (absent: the turn starts a trace). */
  traceParent?: SpanContextRef;
  /** Task ids of parked side-effect tasks the user confirms / rejects (then `query` may be empty). */
  confirm?: string[];
  reject?: string[];
  /** The option id of the last clarification the user chooses (then `query` may be empty). */
  choose?: string;
  /** `continue`: the client going away does not stop the turn (it can be resumed). Default `cancel`. */
  onDisconnect?: 'cancel' | 'continue';
  /** What to do while another turn runs on the session: 409 (default), wait in line, or cancel it. */
  multitaskStrategy?: 'reject' | 'enqueue' | 'interrupt';
  /** `x-switchboard-depth` of the incoming call; 0 (or absent) for a call from a user. */
  delegationDepth?: number;
}

export interface TurnResult {
  sessionId: string;
  finalAnswer: string;
  events: ResponseState[];
}

export interface StartedTurn {
  sessionId: string;
  /** The turn's id (SSE ids are `<turn_id>:<seq>`). */
  turnId?: string;
  /** Settles when the turn ends (never rejects: failures end as a final answer + done). */
  done: Promise<TurnResult>;
}

export interface TurnRunner {
  /**
   * Reserves the session (its lease), writes the user's row ahead and starts
   * the turn. Rejects with a `UserError` (`TURN_IN_PROGRESS`,
   * `NOT_READY` while draining or when storage is unreachable) before any
   * event is emitted; `onEvent` is only called after this promise resolved,
   * unless `eager`: then the turn's first step runs before it resolves (its
   * first frame is ready for the caller to send in the same loop turn as the
   * admission), and the caller buffers what `onEvent` receives meanwhile.
   * Aborting `signal` (the client went away) aborts the turn.
   */
  start(request: TurnRequest, options: { signal: AbortSignal; onEvent: (event: ResponseState) => void; eager?: boolean }): Promise<StartedTurn>;
  /**
   * Graceful shutdown: refuses new turns from now on, lets running ones
   * finish for up to `graceMs`, then cancels the rest (their stream ends with
   * a final saying why and `done` with outcome `cancelled`). Resolves when no
   * turn is left.
   */
  drain(graceMs: number): Promise<void>;
  /** True once `drain` was called. */
  readonly draining: boolean;
  /** Turns running in this process. */
  readonly activeTurns: number;
}
