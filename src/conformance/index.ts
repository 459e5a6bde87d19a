/** Conformance of remote sub-agents to the wire protocol (`switchboard check-agent`). */
export { runConformance, type ConformanceOptions } from './run-conformance.js';
export { targetFromCard, targetFromUrl, DEFAULT_CHECK_TIMEOUT_MS } from './resolve-target.js';
export { formatReport } from './format-report.js';
export type { CheckLevel, CheckOutcome, CheckResult, ConformanceReport, ConformanceTarget } from './types.js';
export { runA2aConformance, servesAgentCard } from './run-a2a-conformance.js';
