/**
 * Remote sub-agents: the client and its protocol adapters.
 */
export { createAgentClient, type AgentClientOptions } from './agent-client.js';
export { createAgentHealthTracker, type AgentHealth, type AgentHealthTracker } from './agent-health.js';
export { createAgentBreakers, type AgentBreakers, type BreakerState } from './circuit-breakers.js';
export {
  createHttpJsonAdapter,
  createHttpSseAdapter,
  createProtocolAdapters,
  type AttemptResult,
  type ProtocolAdapter,
  type ProtocolAdapters,
  type ProtocolAttempt,
} from './protocols/index.js';
export { AGENT_REPLY_SCHEMA, AGENT_REQUEST_SCHEMA, createEnvelopeValidator, type EnvelopeValidator } from './reply-envelope.js';
export type {
  AgentCallOptions,
  AgentClient,
  AgentFailureCode,
  AgentOutcome,
  AgentReply,
  AgentRequestBody,
} from './types.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './agent-client.js';
export { createEndpointFetch } from './endpoint-fetch.js';
export { agentCardUrl } from './protocols/a2a.js';
export { parseReplyText } from './protocols/http-common.js';
export { outputSchemaProblem } from './reply-envelope.js';
