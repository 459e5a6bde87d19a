/**
 * The interface both intent paths implement: the offline matcher and the LLM.
 * The supervisor graph only sees `IntentRecognizer`.
 */
import type { RegistrySnapshot } from '../registry/index.js';
import type { LlmUsage } from '../llm/index.js';
import type { Language } from '../i18n/index.js';
import type { RankedIntent } from '../planning/index.js';
import type { Clause } from '../understanding/index.js';
import type { TurnMeaning } from '../embeddings/index.js';
import type { Clarification } from '../events/index.js';

export type SimpleIntentKind =
  | 'greeting'
  | 'thanks'
  | 'capabilities'
  | 'out_of_scope'
  | 'sensitive'
  | 'abusive'
  /** The turn asks which agent is meant (`IntentResult.clarification`). */
  | 'clarify';

/** One turn of short-term memory as fed to intent recognition / rewrite. */
export interface MemoryTurn {
  query: string;
  rewrittenQuery: string;
  answer: string;
  agents: string[];
}

export type { RankedIntent } from '../planning/index.js';

/**
 * The plan part of the model's one reply (intent, rewrite and plan in one call), passed on as data: recognition
 * does not read it, planning does (`planning/draft-reader.ts`). Planning reads the same shape as its draft source.
 */
export interface ModelPlan {
  /** The user's own words of this turn. */
  readonly query: string;
  /** The reply's `task_plan`, as planning's check gave it back. */
  readonly task_plan: unknown;
  /** Only drafted tasks of these agents (as written) are planned: the intents the turn kept. */
  readonly onlyAgents?: readonly string[];
  /** Drafted tasks of these agents (as written) are not planned: agents the turn set aside. */
  readonly withoutAgents?: readonly string[];
}

export interface IntentResult {
  /** `business` goes to the planner, `simple` is answered directly, `escalate` goes to a human. */
  kind: 'business' | 'simple' | 'escalate';
  simpleKind?: SimpleIntentKind;
  /** Matched enabled agents, best first (empty unless kind is business). */
  intents: RankedIntent[];
  confidence: 'high' | 'medium' | 'low';
  reason: string;
  rewrittenQuery: string;
  /**
   * `rewrittenQuery` is the recogniser's input query itself (trimmed), not a rewrite: the plan reads it through the
   * turn's reading instead of reading it again. Never kept in the intent cache (a hit's text is another message's).
   */
  asTyped?: true;
  userFriendlyMessage: string;
  /** The complete reply of a simple turn when the recognizer already has it (no further model call). */
  answer?: string;
  /** The task plan the model drafted in the same call, unread: the planner reads it (LLM mode). */
  draftPlan?: ModelPlan;
  /** The layered summary updated by the model to cover the turn leaving the verbatim window (LLM mode). */
  memorySummary?: string;
  /** With `simpleKind: 'clarify'`: the options the turn offers instead of guessing (contract v4 "Clarification"). */
  clarification?: Clarification;
  /**
   * A business turn whose message holds a part no agent took and no routed request reads as its value: the
   * options offered for that part and its words (in normal form). The routed requests run; the part is asked
   * about beside them, and a choice runs these words on the chosen agent.
   */
  askAbout?: { readonly query: string; readonly clarification: Clarification };
  /**
   * Parts of a business turn's message (normal form) that may be requests of their own but that no agent took
   * and nothing was offered for: the answer says they were not handled.
   */
  unplaced?: readonly string[];
  /** Which level decided: word rules, the intent cache, the model, or the offline fallback after a model failure. */
  source?: 'rules' | 'cache' | 'model' | 'fallback';
}

/**
 * What a recogniser reads. The turn reads the message once
 * (`understanding/query-reading.ts`): its normal form, its language and its
 * clauses travel with it, so no recogniser normalises, detects the language
 * or splits clauses again.
 */
export interface IntentInput {
  /** What the user typed. */
  query: string;
  /** `query` in normal form (NFKC, trimmed): what matching reads. */
  normalizedQuery: string;
  /** The clauses of `normalizedQuery` with where each starts, split once for the turn (`QueryReading.clauses`). */
  clauses: readonly Clause[];
  /** The language of the turn: replies and messages are written in it. */
  language: Language;
  history: readonly MemoryTurn[];
  /** The layered summary of older turns as prompt text ('' when none). */
  summary?: string;
  /** The user's long-term profile facts as prompt text ('' when none). */
  profile?: string;
  snapshot: RegistrySnapshot;
  /** Agent ids parked last turn waiting for keys; a bare reply may be meant for them. */
  pendingAgents: readonly string[];
  signal?: AbortSignal;
  /** Per-turn model accounting (LLM recognizers record their calls here). */
  usage?: LlmUsage;
  /** "Today" for relative dates. */
  now?: Date;
  /**
   * The turn's meaning of `normalizedQuery` from the optional embeddings endpoint, read at most once per
   * turn (`embeddings/turn-meaning.ts`). Given, it is the only source of the query's vector; absent, a
   * recogniser built with its own semantic index reads it (eval, direct use).
   */
  meaning?: TurnMeaning;
}

export interface IntentRecognizer {
  recognize(input: IntentInput): Promise<IntentResult>;
}

export type { ExtractionResult, KeyExtractor } from '../text/index.js';
