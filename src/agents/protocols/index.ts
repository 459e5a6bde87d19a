/**
 * Wire protocols of remote sub-agents, one adapter each.
 */
export { createProtocolAdapters, type ProtocolAdapters } from './adapter-registry.js';
export { createHttpJsonAdapter } from './http-json.js';
export { createHttpSseAdapter } from './http-sse.js';
export { createA2aAdapter, agentCardUrl, type A2aAdapterOptions } from './a2a.js';
export type { AttemptResult, ProtocolAdapter, ProtocolAttempt } from './protocol-adapter.js';
