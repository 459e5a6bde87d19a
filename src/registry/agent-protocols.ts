/**
 * The wire protocols a sub-agent endpoint may speak (`agents[].endpoint.protocol`),
 * written once: the registry's types, the agent kit, the conformance check and
 * the sub-agent adapters all read this list, and a test holds the JSON Schema's
 * enum to it. A new protocol is one more entry here plus its adapter in
 * `src/agents/protocols/` (the adapter table is typed by this list, so the
 * compiler asks for it).
 */

/** Every protocol the registry accepts. */
export const AGENT_PROTOCOLS = Object.freeze(['http-json', 'http-sse', 'a2a'] as const);

/** One wire protocol of a sub-agent endpoint. */
export type AgentProtocol = (typeof AGENT_PROTOCOLS)[number];

/** The protocol of an endpoint that names none. */
export const DEFAULT_AGENT_PROTOCOL: AgentProtocol = 'http-json';
