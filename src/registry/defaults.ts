/** Registry defaults applied where the file leaves a field out (docs/api.md#registry-file). */
import type { RawCircuitBreaker } from './raw-config.js';
import type { CircuitBreakerSettings, SupervisorSettings } from './types.js';
import { DEFAULT_AGENT_PROTOCOL } from './agent-protocols.js';
import { machineTurnCapacity } from './machine-capacity.js';

/** Supervisor defaults (docs/api.md#registry-file). */
export const SUPERVISOR_DEFAULTS: SupervisorSettings = Object.freeze({
  memoryMaxHistory: 5,
  maxParallel: 4,
  defaultTimeoutMs: 15000,
  // Calls in flight to one agent: room for a few hundred streaming users per agent per process.
  maxConnectionsPerAgent: 256,
  // What this machine can carry (docs/decisions/0044): CPUs and the memory the process may use.
  maxConcurrentTurns: machineTurnCapacity(),
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
  // Seed 001: an error rate over half pauses the agent; it is tried again after five minutes.
  circuitBreaker: Object.freeze({ enabled: true, errorRate: 0.5, minCalls: 10, windowS: 60, openS: 300 }),
});

/** `circuit_breaker` fields written in the file, laid over what they inherit. */
export function mergeCircuitBreaker(base: CircuitBreakerSettings, raw: RawCircuitBreaker | undefined): CircuitBreakerSettings {
  if (!raw) return base;
  return Object.freeze({
    enabled: raw.enabled ?? base.enabled,
    errorRate: raw.error_rate ?? base.errorRate,
    minCalls: raw.min_calls ?? base.minCalls,
    windowS: raw.window_s ?? base.windowS,
    openS: raw.open_s ?? base.openS,
  });
}

/** Endpoint defaults other than the timeout (which comes from the supervisor). */
export const ENDPOINT_DEFAULTS = Object.freeze({ protocol: DEFAULT_AGENT_PROTOCOL, retries: 1 });
