/**
 * The seam between the agent client and a wire protocol. The client owns what
 * every protocol shares (timeouts, retries, cancellation, output validation);
 * an adapter owns one attempt: how the request is sent and how the reply is
 * read. Adding `a2a` later means writing one more adapter, nothing else.
 */
import type { AgentProtocol } from '../../registry/index.js';
import type { AgentFailureCode, AgentReply, AgentRequestBody } from '../types.js';
import type { AgentPost } from '../agent-transport.js';

/** Everything one attempt needs; built by the client for each try. */
export interface ProtocolAttempt {
  /** Sends the POST of the HTTP protocols (`agent-transport.ts`: keep-alive pools, or a handed-in fetch). */
  readonly post: AgentPost;
  /** The fetch of protocols whose library wants one (A2A); checked like `post`. */
  readonly fetch: typeof globalThis.fetch;
  readonly url: string;
  /** Card headers plus `x-request-id` / `x-trace-id`; secret, never put in a reason. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AgentRequestBody;
  /** Fires on the caller's abort or on this attempt's timeout. */
  readonly signal: AbortSignal;
  /** Largest reply body, and largest single event of an event stream (the `result` included). */
  readonly maxResponseBytes: number;
  /**
   * Largest whole event stream, progress included. Larger than `maxResponseBytes`
   * so a chatty agent's result still arrives (what reaches the user is capped
   * per turn elsewhere), yet bounded so no agent can keep us parsing forever.
   */
  readonly maxStreamBytes: number;
  readonly onProgress?: (content: string) => void;
}

/** What one attempt produced. A failure carries the HTTP status when there was one. */
export type AttemptResult =
  | { ok: true; reply: AgentReply }
  | { ok: false; code: AgentFailureCode; reason: string; httpStatus?: number };

/** Sends one attempt over one protocol. Never throws for a remote failure. */
export interface ProtocolAdapter {
  readonly protocol: AgentProtocol | (string & {});
  invoke(attempt: ProtocolAttempt): Promise<AttemptResult>;
}
