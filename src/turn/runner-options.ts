/**
 * What a turn runner is made from: the live registry, the compiled graph, the
 * parts of storage a turn touches, and the hooks the server wires to metrics.
 */
import type { Logger } from '../logger.js';
import type { Registry } from '../registry/index.js';
import type { Storage, TurnOutcome } from '../store/index.js';
import type { StopNoticeReason } from '../i18n/index.js';
import type { LlmCallRecord, LlmUsage } from '../llm/index.js';
import type { ResponseState } from '../events/index.js';
import type { BudgetName, SupervisorGraph } from '../graph/index.js';
import type { StreamCapName, StreamCaps } from './stream-caps.js';

/** The parts of storage a turn uses. */
export type TurnStorage = Pick<Storage, 'transcript' | 'events' | 'tasks' | 'leases' | 'signals'>;

/** Why a running turn was stopped (the abort reason of its signal). */
export type TurnStopReason = 'client_disconnected' | StopNoticeReason;

/** Options of `createTurnRunner`. */
export interface TurnRunnerOptions {
  registry: Registry;
  graph: SupervisorGraph;
  storage: TurnStorage;
  logger: Logger;
  /** Identifies this process as a lease holder (default a random id). */
  replicaId?: string;
  /** Lease time to live; a dead replica's session is free again after this. Default 15000 ms. */
  leaseTtlMs?: number;
  /** Turns a session may have waiting with `multitask_strategy: "enqueue"` (per process). Default 5. */
  maxQueuedTurns?: number;
  /** Longest an enqueued turn waits for its start. Default 120000 ms. */
  queueWaitMs?: number;
  /** Announce each stored batch of events on the signal bus (for resume followers); on where signals are cheap. */
  announceEvents?: boolean;
  /** Drops older checkpoints of a thread after each turn (keeps storage bounded). */
  pruneCheckpoints?: (threadId: string) => Promise<void>;
  now?: () => Date;
  /** Per-turn usage summary added to the final and done events. */
  summariseUsage?: (usage: LlmUsage) => Record<string, unknown>;
  /** Called once per finished turn with its model calls (metrics: tokens by model). */
  onModelCalls?: (calls: readonly LlmCallRecord[]) => void;
  /** Called once per finished turn with its lifecycle outcome and every event it sent (metrics). */
  onTurnEnd?: (outcome: TurnOutcome, durationMs: number, events: readonly ResponseState[]) => void;
  /** Called the first time a turn reaches one of its budgets (metrics). */
  onBudgetReached?: (budget: BudgetName) => void;
  /**
   * How long a turn past its `max_turn_ms` gets to finish its answer before it
   * is stopped outright (something ignored the deadline). Default 5000 ms.
   */
  budgetGraceMs?: number;
  /** Caps on the `agent_stream` progress one turn relays (default `DEFAULT_STREAM_CAPS`). */
  streamCaps?: Partial<StreamCaps>;
  /** Called for each progress event a cap dropped; `first` once per cap per turn (metrics). */
  onStreamDrop?: (cap: StreamCapName, first: boolean) => void;
}

/** The stop reason of a turn whose signal was aborted; an abort with no known reason is the client leaving. */
export function stopReasonOf(signal: AbortSignal): TurnStopReason {
  const reason: unknown = signal.reason;
  return reason === 'server_shutdown' || reason === 'lease_lost' || reason === 'user_cancel' || reason === 'max_turn_ms' ? reason : 'client_disconnected';
}
