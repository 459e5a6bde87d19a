/**
 * The agent kit: what a sub-agent developer needs to speak Switchboard's
 * sub-agent protocol — the wire types, both JSON Schemas, checks for both, a
 * ready node:http server for http-json and http-sse, and the conformance suite
 * that `switchboard check-agent` runs. No dependencies.
 */
export { createAgentServer, type AgentHandler, type AgentHandlerContext, type AgentServerOptions } from './agent-server.js';
export { AGENT_REPLY_SCHEMA, AGENT_REQUEST_SCHEMA, checkAgentReply, checkAgentRequest, parseJson, type AgentReply, type AgentRequestBody, type Checked } from './wire.js';
export { runConformance, parseReplyText, DEFAULT_MAX_RESPONSE_BYTES, type ConformanceOptions, type Judged } from './conformance/run-conformance.js';
export { sendProbe, describeError, type ProbeEvent, type ProbeOptions, type ProbeResult } from './conformance/probe.js';
export { createSseParser, type SseEvent } from './conformance/sse-parser.js';
export { formatReport } from './conformance/format-report.js';
export type { CheckLevel, CheckOutcome, CheckResult, ConformanceReport, ConformanceTarget } from './conformance/types.js';
