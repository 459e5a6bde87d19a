/** Registry defaults applied where the file leaves a field out (docs/api.md#registry-file). */
import type { SupervisorSettings } from './types.js';
import { DEFAULT_AGENT_PROTOCOL } from './agent-protocols.js';

/** Supervisor defaults (docs/api.md#registry-file). */
export const SUPERVISOR_DEFAULTS: SupervisorSettings = Object.freeze({
  memoryMaxHistory: 5,
  maxParallel: 4,
  defaultTimeoutMs: 15000,
  escalateAfterFailures: 2,
  wordLists: Object.freeze({ sensitive: [], abusive: [], escalation: [] }),
  verify: Object.freeze({ enabled: true, maxRetries: 1 }),
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
export const ENDPOINT_DEFAULTS = Object.freeze({ protocol: DEFAULT_AGENT_PROTOCOL, retries: 1 });
