/**
 * Remote sub-agents: the client and its protocol adapters.
 */
export { createAgentClient, type AgentClientOptions } from './agent-client.js';
export { createProtocolAdapters, type ProtocolAdapters } from './protocols/adapter-registry.js';
export { createHttpJsonAdapter } from './protocols/http-json.js';
export { createHttpSseAdapter } from './protocols/http-sse.js';
export type { AttemptResult, ProtocolAdapter, ProtocolAttempt } from './protocols/protocol-adapter.js';
export { AGENT_REPLY_SCHEMA, parseReplyValue } from './reply-envelope.js';
export type {
  AgentCallOptions,
  AgentClient,
  AgentFailureCode,
  AgentOutcome,
  AgentReply,
  AgentRequestBody,
} from './types.js';
