/**
 * The verify step's interface: a `Verifier` judges whether the results of a
 * turn answer the request. The offline one never judges (the rule check
 * decides alone); the LLM one makes one model call.
 */
import type { TurnContext } from '../context.js';
import type { Language } from '../../i18n/index.js';
import type { InsufficientTask } from './rule-check.js';

/** One sub-task as the judge sees it. */
export interface VerifyTaskView {
  task_id: string;
  /** User-facing service name. */
  service: string;
  status: string;
  /** True when it may be re-sent (read-only and it ran). */
  retryable: boolean;
  message?: string;
  /** The agent's output as JSON text, already trimmed. */
  output?: string;
  /** What the rule check found, when it found something. */
  rule?: InsufficientTask['reason'];
}

export interface VerifyInput {
  /** The rewritten query of the turn. */
  query: string;
  language: Language;
  tasks: readonly VerifyTaskView[];
}

/** The judge's verdict (docs/api.md#model-replies). */
export interface VerifyJudgement {
  sufficient: boolean;
  retry: { task_id: string; revised_message: string }[];
  reason: string;
}

export interface Verifier {
  /** False for the offline verifier: no model call, no verify stages. */
  readonly usesModel: boolean;
  /** One judgement; undefined when it could not be had (the rule check then decides). */
  judge(input: VerifyInput, context: TurnContext): Promise<VerifyJudgement | undefined>;
}

/** What the verify step concluded for the turn (graph state, read by summarize and escalate). */
export interface Verification {
  sufficient: boolean;
  /** The judge's reason, or the rule check's summary. */
  reason: string;
  /** Tasks that still do not answer. */
  missing: InsufficientTask[];
  /** Task ids re-sent with revised messages. */
  retried: string[];
  rounds: number;
  /** True when the model judged this turn. */
  judged: boolean;
}
