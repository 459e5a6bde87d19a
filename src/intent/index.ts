/**
 * Intent recognition: the `IntentRecognizer` interface (`types.ts`) and its two
 * implementations, offline (`offline-recognizer.ts`) and LLM
 * (`llm-recognizer.ts`, its prompt and schema in `llm/`). `routing/` holds the
 * card ranker and the clause helpers both use, `simple/` the greetings and
 * other simple intents with the texts of their direct answers.
 */
export type {
  IntentInput,
  IntentRecognizer,
  IntentResult,
  MemoryTurn,
  RankedIntent,
  SimpleIntentKind,
} from './types.js';
export {
  buildClarification,
  decideClarification,
  DEFAULT_CLARIFY_THRESHOLDS,
  MAX_CLARIFICATION_OPTIONS,
  optionNamedIn,
  type ClarifyThresholds,
} from './clarification.js';
export { createOfflineRecognizer, type OfflineRecognizerOptions } from './offline-recognizer.js';
export { createLlmRecognizer, type IntentFallbackMetrics, type LlmRecognizerOptions } from './llm-recognizer.js';
export {
  createInMemoryIntentCache,
  createIntentCache,
  intentCacheKey,
  normalizeQueryForCache,
  type InMemoryIntentCacheOptions,
  type IntentCache,
  type IntentCacheKeyInput,
} from './intent-cache.js';
export { createCardPreselector, type CardPreselectInput, type CardPreselector, type CardPreselectOptions, type CardSelection } from './routing/card-preselect.js';
export { createExampleRanker, type ExampleRanker, type ExampleRankerOptions } from './routing/example-ranker.js';
export type { AgentMatch, AgentRanker, RankResult } from './routing/card-ranker.js';
export {
  createSimpleIntentClassifier,
  DEFAULT_SIMPLE_INTENT_LEXICON,
  type SimpleIntentClassifier,
  type SimpleIntentLexicon,
  type SimpleIntentMatch,
} from './simple/simple-intents.js';
export { composeDirectAnswer, composeIntentMessage, type DirectAnswerKind } from './simple/direct-answers.js';
export { INTENT_PROMPT_RULES } from './llm/intent-prompt.js';
