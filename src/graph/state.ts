/**
 * The internal graph state (`AgentState`). Kept small and bounded because the
 * checkpointer stores every channel at each checkpoint: per-turn fields are
 * reset by the init node, the transcript lives in the message store, and only
 * `memory` carries over between turns.
 */
import { Annotation } from '@langchain/langgraph';
import type { IntentResult, MemoryTurn } from '../intent/index.js';
import type { QueryReading } from '../understanding/index.js';
import type { Clarification, ConfirmationRequest, SemanticInfo } from '../events/index.js';
import type { InvalidKey, TaskOutcome, TaskPlan } from '../planning/index.js';
import type { Verification } from './verify/types.js';
import type { LayeredSummary } from './memory/layered-summary.js';
import type { PendingTask, ProfileFact } from '../store/index.js';
import type { ProfileFill } from './memory/profile-facts.js';
import type { AnswerCacheKey } from './caches/answer-cache.js';
import type { ValueSource } from './value-source.js';
import type { Language } from '../i18n/index.js';

/** Bumped when the persisted `memory` shape changes. */
export const MEMORY_SCHEMA_VERSION = 1;

// A parked task is kept in the session's saved memory; its shape is written with the storage shapes (`src/store/parked-task.ts`).
export type { PendingTask } from '../store/index.js';

/** Why this turn goes to a human before planning (decided before intent recognition). */
export interface EscalationTrigger {
  reason: 'emotion' | 'verify_failed';
  /** The emotion words behind an `emotion` trigger. */
  words?: string[];
}

/** This turn's place in the answer cache (absent when its plan may not be answered from cache). */
export interface AnswerCacheState extends AnswerCacheKey {
  /** True when the answer was found: the turn is answered with `answer`, no agent or model is called. */
  hit: boolean;
  answer?: string;
}

/** What survives from one turn to the next (short-term memory). */
export interface SessionMemory {
  schema_version: number;
  /** Last turns, at most `memory_max_history`. */
  history: MemoryTurn[];
  pending: PendingTask[];
  /** Slot memory: key → last known value, across agents. */
  known_values: Record<string, string | number>;
  /** key → where its value in `known_values` came from (absent in memory saved before sources were kept). */
  known_sources?: Record<string, ValueSource>;
  /** Consecutive turns that ended without any result. */
  unresolved_turns: number;
  /** Every turn older than `history`, folded incrementally (absent until the first fold). */
  summary?: LayeredSummary;
  /** The clarification the last turn asked (contract v4); the next turn answers it or drops it. */
  clarification?: PendingClarification;
}

/** A clarification waiting for its answer: the options and the message they are about. */
export interface PendingClarification extends Clarification {
  /** The message the user sent (the chosen agent handles it as if it had been routed there). */
  query: string;
  language: Language;
  asked_at: string;
}

/** The option the user chose this turn, and the message it is about. */
export interface ChosenOption {
  agent_id: string;
  option_id: string;
  query: string;
}

export function emptyMemory(): SessionMemory {
  return { schema_version: MEMORY_SCHEMA_VERSION, history: [], pending: [], known_values: {}, unresolved_turns: 0 };
}

const replace = <T>(fallback: () => T) => Annotation<T>({ reducer: (_previous: T, next: T) => next, default: fallback });

export const SupervisorStateAnnotation = Annotation.Root({
  query: replace<string>(() => ''),
  /** The turn's one reading of `query` (made by the control node; null before it runs). */
  reading: replace<QueryReading | null>(() => null),
  user_id: replace<string>(() => ''),
  thread_id: replace<string>(() => ''),
  rewritten_query: replace<string>(() => ''),
  intent: replace<IntentResult | null>(() => null),
  task_plan: replace<TaskPlan | null>(() => null),
  /** task_id → keys present but invalid (from extraction). */
  invalid_keys: replace<Record<string, InvalidKey[]>>(() => ({})),
  semantic_info: replace<SemanticInfo[]>(() => []),
  task_results: replace<Record<string, TaskOutcome>>(() => ({})),
  execution_path: replace<string[]>(() => []),
  final_answer: replace<string>(() => ''),
  /** What the verify step concluded this turn (null when it did not run). */
  verification: replace<Verification | null>(() => null),
  /** The user's long-term facts, read at the start of the turn. */
  profile: replace<ProfileFact[]>(() => []),
  /** Keys filled from the profile this turn (the answer says so). */
  profile_filled: replace<ProfileFill[]>(() => []),
  memory: replace<SessionMemory>(emptyMemory),
  /** Task ids the user confirmed / rejected through the chat body (input of this turn). */
  confirm: replace<string[]>(() => []),
  reject: replace<string[]>(() => []),
  /** The option id of the last clarification the user chose through the chat body (input of this turn). */
  choose: replace<string | null>(() => null),
  /** This turn answers the last clarification: the chosen agent handles its message. */
  clarified: replace<ChosenOption | null>(() => null),
  /** Side-effect tasks of this turn's plan parked until the user confirms them. */
  confirmation: replace<ConfirmationRequest[]>(() => []),
  /** User-facing sentences about parked tasks this turn dropped or could not run; they open the answer. */
  notices: replace<string[]>(() => []),
  /** Agents whose parked tasks expired at the start of this turn (nothing of theirs is live): a follow-up does not bring them back. */
  expired_agents: replace<string[]>(() => []),
  /** A confirmation turn: parked tasks it did not touch are kept as they were. */
  confirm_turn: replace<boolean>(() => false),
  /** On a confirmation turn: per confirmed task, the outputs of the earlier turn's tasks it depends on (its `upstream`). */
  carried_upstream: replace<Record<string, TaskOutcome[]>>(() => ({})),
  escalation: replace<EscalationTrigger | null>(() => null),
  /** The answer cache's key for this turn's plan, and whether it was answered from it. */
  answer_cache: replace<AnswerCacheState | null>(() => null),
});

export type SupervisorState = typeof SupervisorStateAnnotation.State;
export type SupervisorUpdate = typeof SupervisorStateAnnotation.Update;
