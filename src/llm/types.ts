/**
 * Every model call goes through one `LlmGateway`, which counts calls, tokens
 * and latency per turn into an `LlmUsage` the caller passes in.
 */

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Which configured model to use; the router picks, the gateway maps to a name. */
export type ModelTier = 'main' | 'small';

export interface LlmCallRecord {
  purpose: string;
  model: string;
  tier: ModelTier;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  attempts: number;
  ok: boolean;
  error?: string;
  /** True when the endpoint sent no `usage` and the token counts are a rough estimate. */
  tokensEstimated?: boolean;
  /** Why the router chose this tier (copied from `LlmCallOptions.tierReason`). */
  tierReason?: string;
  /** How structured output was requested, when a JSON schema was given. */
  jsonMode?: JsonMode;
}

/**
 * How structured output is asked for: the endpoint's JSON-schema mode, its
 * plain JSON mode, or only an instruction in the system message.
 */
export type JsonMode = 'json_schema' | 'json_object' | 'prompt';

/** Per-turn accounting, filled by the gateway. */
export interface LlmUsage {
  calls: LlmCallRecord[];
  /** The turn's limits on model use; enforced by `withTurnBudget` (absent = unlimited). */
  budget?: LlmBudget;
}

/** Which per-turn budget stopped a model call (docs/api.md#registry-file `budgets`). */
export type LlmBudgetName = 'max_llm_tokens' | 'max_turn_ms';

/**
 * A turn's limits on model use. Once the tokens the turn's calls used reach
 * `maxTokens`, or the deadline passed, no further call starts (the caller
 * falls back to its offline path); a call in flight when the deadline passes
 * is aborted.
 */
export interface LlmBudget {
  /** Prompt plus completion tokens the turn's calls may use. */
  readonly maxTokens: number;
  /** Aborted when the turn's time budget ran out. */
  readonly deadline?: AbortSignal;
  /** Told each time a call was refused or cut for a budget. */
  refused(budget: LlmBudgetName): void;
}

export interface LlmCallOptions {
  /** Short label for logs and metrics: `intent`, `plan`, `answer`, ... */
  purpose: string;
  tier: ModelTier;
  messages: ChatMessage[];
  /** Ask for JSON-schema structured output (falls back to plain JSON prompting when unsupported). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** When given, the call streams and each text delta is passed here as it arrives. */
  onToken?: (delta: string) => void;
  usage?: LlmUsage;
  /** Why this tier was chosen (see `chooseTier`); logged and recorded with the call. */
  tierReason?: string;
}

export interface LlmCallResult {
  text: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** HTTP requests it took, retries and structured-output fallbacks included. */
  attempts?: number;
  /** True when the token counts are an estimate (the endpoint sent no `usage`). */
  tokensEstimated?: boolean;
}

export interface LlmGateway {
  readonly enabled: boolean;
  complete(options: LlmCallOptions): Promise<LlmCallResult>;
}
