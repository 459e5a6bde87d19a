/**
 * The agent kit (`switchboard/agent-kit`): what a sub-agent developer needs to
 * speak docs/api.md#sub-agent-wire-protocol — the wire types, the JSON Schemas of request and reply,
 * validators for both, and a ready node:http server for http-json and http-sse.
 */
export {
  createAgentServer,
  type AgentHandler,
  type AgentHandlerContext,
  type AgentServerOptions,
} from './create-agent-server.js';
export { AGENT_REPLY_SCHEMA, AGENT_REQUEST_SCHEMA, createEnvelopeValidator, type EnvelopeValidator } from '../agents/reply-envelope.js';
export type { AgentReply, AgentRequestBody } from '../agents/types.js';
