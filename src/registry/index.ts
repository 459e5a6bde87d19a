/** The registry: load, validate, watch and publish capability cards. */
export { createRegistry, createStaticRegistry, type CreateRegistryOptions, type ReloadOutcome, type WatchedRegistry } from './watch-registry.js';
export {
  loadRegistryFile,
  loadRegistryText,
  formatIssue,
  contentVersion,
  configInvalidError,
  type LoadRegistryOptions,
  type LoadResult,
} from './load-registry.js';
export { diffSnapshots, isEmptyDiff } from './diff-snapshots.js';
export { addExamples, insertionDiff, type AddExamplesResult, type ExampleAdditions } from './add-examples.js';
export { createA2aCardFetcher, type A2aCardFetcher, type A2aCardFetcherOptions, type A2aCardMap, type FetchedA2aCard } from './a2a-cards.js';
export { createResolvedAddressCheck, type ResolvedAddressCheck } from './private-address.js';
export { toPublicCard } from './public-card.js';
export { resolveAgentId } from './resolve-agent-id.js';
export { extractToJson } from './extract-spec.js';
export { agentOverlaps, type AgentOverlap } from './registry-lint.js';
export { interpolateEnv } from './env-interpolation.js';
export { SUPERVISOR_DEFAULTS, ENDPOINT_DEFAULTS } from './defaults.js';
export { createValidatorCache, type ValidatorCache } from './schema-compiler.js';
export { CONFIG_SCHEMA_URL } from './config-schema.js';
export type {
  AgentCard,
  AgentEndpoint,
  AgentProtocol,
  ConfigIssue,
  ExtractSpec,
  LastLoadError,
  PublicAgentCard,
  Registry,
  RegistryDiff,
  RegistrySnapshot,
  SemanticKeySpec,
  SupervisorSettings,
} from './types.js';
export { allNames, cardDescription, cardName, keyDescription } from './localized-text.js';
export type { CircuitBreakerSettings, EscalationSettings, PiiPattern, RateLimitSettings, TurnBudgets } from './types.js';
