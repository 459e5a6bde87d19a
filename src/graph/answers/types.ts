/**
 * How user-facing answers are written: offline from templates, or by the LLM
 * (streamed). Both implement `AnswerComposer`.
 */
import type { IntentResult, MemoryTurn, SimpleIntentKind } from '../../intent/index.js';
import type { RegistrySnapshot } from '../../registry/index.js';
import type { TurnContext } from '../context.js';
import type { Language } from '../../i18n/index.js';
import type { TaskOutcome, TaskPlan } from '../../planning/index.js';
import type { SemanticInfo } from '../../events/index.js';
import type { Verification } from '../verify/types.js';

export interface DirectAnswerInput {
  kind: SimpleIntentKind;
  query: string;
  language: Language;
  history: readonly MemoryTurn[];
  snapshot: RegistrySnapshot;
  /** The intent result (an LLM recognizer may already have written the answer). */
  intent?: IntentResult;
}

export interface SummaryInput {
  query: string;
  language: Language;
  plan: TaskPlan;
  outcomes: Readonly<Record<string, TaskOutcome>>;
  semanticInfo: readonly SemanticInfo[];
  /** agent id → key → the value the user gave that the key refused (named in the answer). */
  refusedValues?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** agent id → key → the several values the user gave a key one task takes once (a side effect asks which one). */
  severalValues?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
  snapshot: RegistrySnapshot;
  now: Date;
  history: readonly MemoryTurn[];
  /** The verify step's conclusion; when insufficient, the answer says what is missing. */
  verification?: Verification | null;
}

export interface AnswerComposer {
  /** Answers a simple intent. `onDelta` receives text as it is produced (streaming composers). */
  direct(input: DirectAnswerInput, context: TurnContext, onDelta?: (delta: string) => void): Promise<string>;
  /** The final answer of a business turn. */
  summarize(input: SummaryInput, context: TurnContext, onDelta?: (delta: string) => void): Promise<string>;
}
