/**
 * The agent kit (`switchboard/agent-kit`): what a sub-agent developer needs to
 * speak docs/api.md#sub-agent-wire-protocol. It lives in its own dependency-free package
 * (`packages/agent-kit`, published as `@switchboard/agent-kit`, compiled to
 * JavaScript); this entry re-exports it for code inside this repository, plus
 * the server's ajv-based envelope validator.
 */
export {
  AGENT_REPLY_SCHEMA,
  AGENT_REQUEST_SCHEMA,
  checkAgentReply,
  checkAgentRequest,
  createAgentServer,
  type AgentHandler,
  type AgentHandlerContext,
  type AgentReply,
  type AgentRequestBody,
  type AgentServerOptions,
} from '../../packages/agent-kit/src/index.js';
export { createEnvelopeValidator, type EnvelopeValidator } from '../agents/index.js';
