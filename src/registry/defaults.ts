/** Registry defaults applied where the file leaves a field out (CONTRACT §1). */
import type { AgentProtocol, SupervisorSettings } from './types.js';

/** Supervisor defaults (CONTRACT §1). */
export const SUPERVISOR_DEFAULTS: SupervisorSettings = Object.freeze({
  memoryMaxHistory: 5,
  maxParallel: 4,
  defaultTimeoutMs: 15000,
  escalateAfterFailures: 2,
  wordLists: Object.freeze({ sensitive: [], abusive: [], escalation: [] }),
  verify: Object.freeze({ enabled: true, maxRetries: 1, judge: 'on_doubt' as const }),
  answerCacheTtlS: 300,
  retentionDays: 90,
  maxDelegationDepth: 3,
  budgets: Object.freeze({ maxSubtasks: 8, maxLlmTokens: 20000, maxTurnMs: 60000 }),
  rateLimit: null,
  piiPatterns: Object.freeze([]),
  allowPrivateEndpoints: false,
  pendingTtlS: 600,
  escalation: Object.freeze({ emotionWords: [], emotionThreshold: 2.5 }),
});

/** Endpoint defaults other than the timeout (which comes from the supervisor). */
export const ENDPOINT_DEFAULTS = Object.freeze({ protocol: 'http-json' as AgentProtocol, retries: 1 });
