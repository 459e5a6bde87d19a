/**
 * Intent recognition without a model: ranking of capability cards, simple
 * intents, short-term-memory rewrite, semantic-key extraction and the
 * user-facing texts of direct answers.
 */
export type {
  IntentInput,
  IntentRecognizer,
  IntentResult,
  MemoryTurn,
  RankedIntent,
  SimpleIntentKind,
} from './types.js';
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
export { createCardPreselector, type CardPreselectInput, type CardPreselector, type CardPreselectOptions, type CardSelection } from './card-preselect.js';
export { createExampleRanker, type ExampleRanker, type ExampleRankerOptions } from './example-ranker.js';
export { isFollowUp, refersToPreviousTurn } from './follow-up.js';
export { createAgentRanker, type AgentMatch, type AgentRanker, type AgentRankerOptions, type RankResult } from './agent-ranker.js';
export {
  createSimpleIntentClassifier,
  DEFAULT_SIMPLE_INTENT_LEXICON,
  type SimpleIntentClassifier,
  type SimpleIntentLexicon,
  type SimpleIntentMatch,
} from './simple-intents.js';
export { composeDirectAnswer, composeIntentMessage, type DirectAnswerKind } from './direct-answers.js';
export { splitClauses, type Clause } from './clause-splitter.js';
export { attributeClauseValues, requestWordIn, type AgentClauseValues, type ClauseValuesRequest } from './clause-values.js';
