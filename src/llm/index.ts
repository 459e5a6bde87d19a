/**
 * The model gateway: OpenAI-compatible calls with timeouts, retries, a
 * circuit breaker, structured-output fallback, streaming and per-turn
 * accounting; plus the tier router. Prompts live beside the strategies that
 * use them (`intent/llm/intent-prompt.ts`, `graph/answers/answer-prompt.ts`).
 */
export type {
  ChatMessage,
  JsonMode,
  LlmCallOptions,
  LlmCallRecord,
  LlmBudget,
  LlmBudgetName,
  LlmCallResult,
  LlmGateway,
  LlmUsage,
  ModelTier,
} from './types.js';
export {
  createLlmGateway,
  type CircuitState,
  type LlmGatewayOptions,
  type LlmMetricsSink,
  type OpenAiCompatibleGateway,
} from './openai-gateway.js';
export type { CircuitBreakerOptions } from './circuit-breaker.js';
export { createDisabledLlmGateway, createLlmGatewayFromEnv } from './gateway-from-env.js';
export { LlmCallError, LlmConfigError, type LlmFailureReason } from './llm-error.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
export { chooseTier, SHORT_QUERY_LIMITS, type TierChoice, type TierInput, type TurnKind } from './model-router.js';
export { createLlmUsage, summariseUsage, type PurposeUsage, type UsageSummary } from './usage-summary.js';
export { countCjkCharacters, estimateTokens } from './token-estimate.js';
export { tokensUsed, withTurnBudget } from './budgeted-gateway.js';
export { CallerAbortedError, createEndpointBreaker } from './circuit-breaker.js';
export { completeJson } from './complete-json.js';
