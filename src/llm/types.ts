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
}

/** Per-turn accounting, filled by the gateway. */
export interface LlmUsage {
  calls: LlmCallRecord[];
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
}

export interface LlmCallResult {
  text: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

export interface LlmGateway {
  readonly enabled: boolean;
  complete(options: LlmCallOptions): Promise<LlmCallResult>;
}
