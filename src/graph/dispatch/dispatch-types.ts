/**
 * What task dispatch is given and what its steps share (see task-dispatch.ts):
 * the long-lived dependencies, the turn a dispatch runs in, and the options of
 * one send.
 */
import type { AgentClient } from '../../agents/index.js';
import type { Logger } from '../../logger.js';
import type { KeyRequest } from '../../planning/index.js';
import type { RegistrySnapshot } from '../../registry/index.js';
import type { TextScrubber } from '../../text/index.js';
import type { NodeEvent, TurnContext } from '../context.js';
import type { ResponseCache } from '../caches/response-cache.js';
import type { SupervisorState } from '../state.js';

export interface DispatchDependencies {
  agentClient: AgentClient;
  logger: Logger;
  /** Called after each sub-agent call (metrics). */
  onAgentCall?: (agentId: string, status: string, durationMs: number) => void;
  /** Replies of agents with `cache_ttl_s`; none = every sub-task is sent. */
  responseCache?: ResponseCache;
}

/** What one dispatch runs in: the turn, its event writer, and where key requests of agents are collected. */
export interface DispatchScope {
  state: Pick<SupervisorState, 'user_id' | 'thread_id' | 'rewritten_query'>;
  context: TurnContext;
  emit: (event: NodeEvent) => void;
  /** `semantic_info` of agents that answered input_required with keys. */
  extraInfo: KeyRequest[];
}

export interface DispatchOptions {
  /** Sent instead of the task's description (a revised message from the verify step). */
  message?: string;
  /** Always call the agent, even when a cached reply exists. */
  bypassCache?: boolean;
  /**
   * The `task_id` sent to the agent when it differs from the plan's: a re-send
   * with a revised message is a new request, so an agent that deduplicates by
   * task id must not answer it with the first reply.
   */
  requestTaskId?: string;
}

/** A dispatch scope with what every step reads of it: the snapshot, the language and the snapshot's guards. */
export interface DispatchTurn extends DispatchScope {
  dependencies: DispatchDependencies;
  snapshot: RegistrySnapshot;
  language: TurnContext['language'];
  /** The snapshot's content guard (texts) and secret guard (data). */
  guard: { text: TextScrubber; data: TextScrubber };
}
