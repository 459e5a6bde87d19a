/**
 * The sub-agent wire protocol (docs/api.md#sub-agent-wire-protocol) as types. A protocol adapter turns
 * one `AgentRequest` into one `AgentOutcome`; it never throws for a remote
 * failure — every failure is an outcome with a reason.
 */
import type { AgentCard } from '../registry/index.js';
import type { AgentReply, AgentRequestBody } from '../../packages/agent-kit/src/wire.js';

// The wire shapes are the agent kit's: one definition for both ends of the protocol.
export type { AgentReply, AgentRequestBody } from '../../packages/agent-kit/src/wire.js';

export type AgentOutcome =
  | { ok: true; reply: AgentReply; attempts: number; durationMs: number }
  | {
      ok: false;
      /** Safe to show users: no addresses, ports or header values. */
      reason: string;
      /** The full technical text (header values redacted), for logs only. */
      detail: string;
      code: AgentFailureCode;
      attempts: number;
      durationMs: number;
    };

export type AgentFailureCode =
  | 'timeout'
  | 'connect_error'
  | 'http_status'
  | 'bad_body'
  | 'too_large'
  | 'output_schema'
  | 'stream_incomplete'
  | 'aborted'
  | 'agent_failed'
  /** The card names a protocol no adapter is registered for. */
  | 'unsupported_protocol'
  /** The agent's circuit breaker is open: it was not called. */
  | 'circuit_open'
  /** Every connection the agent allows (`endpoint.max_connections`) stayed taken for the bounded wait: not called. */
  | 'busy';

export interface AgentCallOptions {
  /** Aborts the call (client disconnect, turn cancelled). */
  signal?: AbortSignal;
  /** Called for each `progress` event of an `http-sse` agent. */
  onProgress?: (content: string) => void;
  requestId?: string;
  /** Sent as `x-switchboard-depth` (docs/api.md#sub-agent-wire-protocol): 1 for a call from a user turn. Default 1. */
  delegationDepth?: number;
}

/** Calls one sub-agent according to its card. */
export interface AgentClient {
  call(card: AgentCard, body: AgentRequestBody, options?: AgentCallOptions): Promise<AgentOutcome>;
  /** Closes the client's pooled connections (the supervisor's shutdown). */
  close?(): Promise<void>;
}
