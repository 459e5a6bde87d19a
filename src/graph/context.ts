/**
 * Per-turn runtime context handed to every node through LangGraph's `context`
 * option (not through state, so nothing here is checkpointed).
 */
import type { Clarification, ConfirmationRequest, SemanticInfo, Stage } from '../events/index.js';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { RegistrySnapshot } from '../registry/index.js';
import type { LlmUsage } from '../llm/index.js';
import type { TurnBudget } from './turn-budget.js';
import type { TurnMeaning } from '../embeddings/index.js';

export interface TurnContext {
  /** The registry version this turn started on; kept for the whole turn. */
  snapshot: RegistrySnapshot;
  signal: AbortSignal;
  /** "Today" for relative dates. */
  now: Date;
  traceId: string;
  language: 'zh' | 'en';
  usage: LlmUsage;
  /** Wall time of each graph node in this turn, in milliseconds (filled as nodes finish). */
  timings: Record<string, number>;
  /** Id of this turn (events are `<turn_id>:<seq>`). */
  turnId?: string;
  /** `x-switchboard-depth` sent on this turn's sub-agent requests: incoming depth + 1 (1 from a user turn). */
  delegationDepth?: number;
  /**
   * The user's owner key (user id within its tenant, `src/store/owner-key.ts`):
   * what profiles and per-user caches are keyed by. Absent in unit tests: the
   * state's `user_id` then stands for it (the default tenant).
   */
  owner?: string;
  /**
   * The meaning of the turn's message from the optional embeddings endpoint, read at most once (set by the
   * intent node when an endpoint is configured). Here, not in state: the vector of a user's words is never
   * written to the checkpointer.
   */
  meaning?: TurnMeaning;
  /** Set when the turn was answered from the answer cache (the `done` event says `cached: true`). */
  answerCached?: boolean;
  /** Records each sub-task before it is sent (audit trail); absent in unit tests. */
  tasks?: TaskRecorder;
  /** The turn's budgets (sub-tasks, model tokens, time); absent = unlimited (unit tests). */
  budget?: TurnBudget;
  /**
   * Whether a progress message of `agentId` is still within the turn's caps on
   * relayed progress (counted once, here); one over them is dropped before any
   * further work. Absent: every message is relayed.
   */
  admitProgress?: (agentId: string, content: string) => boolean;
  /**
   * Set when the runner sent `intent_start` before the graph started (the
   * message's own words fix its language, so the first frame needs no storage
   * read): the intent node does not send it again, and a turn the control node
   * ends closes it with `intent_done`.
   */
  announced?: boolean;
  /** Each remote sub-agent call of this turn, appended as it ends (the turn's usage, `turn/turn-usage.ts`); absent in unit tests. */
  agentCalls?: AgentCallRecord[];
  /**
   * The number of this turn in its session as the value sources count turns (`ValueSource` `user.turn`), set
   * when the turn's inputs were sourced; the turn record keeps it so a source in an earlier turn finds that turn.
   */
  sessionTurn?: number;
}

/** One remote call to a sub-agent (a cached reply is not a call). */
export interface AgentCallRecord {
  /** The id the request carried (a verify retry's differs from its plan task's). */
  task_id: string;
  agent_id: string;
  /** The agent answered (any reply status); false for a failure (timeout, error, breaker open, aborted). */
  ok: boolean;
  /** Its reply status, or the failure code. */
  status: string;
  /** Wall time, retries included. */
  ms: number;
}

/** What the execute node tells storage about the sub-tasks it sends. */
export interface TaskRecorder {
  /** Called before the request leaves; a rejection means the task must not be sent. */
  dispatched(task: { task_id: string; agent_id: string; inputs: Record<string, unknown> }): Promise<void>;
  /** The task's outcome (best effort). */
  settled(taskId: string, status: 'completed' | 'failed' | 'input_required' | 'cancelled', detail?: string): void;
}

/** What a node emits; the turn runner adds `type`, `session_id` and `seq`. */
export interface NodeEvent {
  stage: Stage;
  content: string;
  agent_id: string;
  is_thinking: boolean;
  semantic_info?: SemanticInfo[];
  /** Side-effect tasks awaiting the user's confirmation (plan_done and final). */
  confirmation?: ConfirmationRequest[];
  /** The options of a clarification (plan_done and final). */
  clarification?: Clarification;
  state?: Record<string, unknown>;
}

export type NodeConfig = LangGraphRunnableConfig;

/** The turn context of a node call; throws if the runner did not provide one (a wiring bug). */
export function turnContext(config: NodeConfig): TurnContext {
  const context = config.context as TurnContext | undefined;
  if (!context) throw new Error('graph invoked without a turn context');
  return context;
}

/** The key of the turn's user in storage (see `TurnContext.owner`). */
export function ownerOf(context: TurnContext, userId: string): string {
  return context.owner ?? userId;
}

/** A function that sends one event to the client while the graph runs. */
export function eventWriter(config: NodeConfig): (event: NodeEvent) => void {
  const write = config.writer;
  return (event) => write?.(event);
}
