/**
 * `GET /v1/agents`: the live registry as clients may see it — public cards
 * (no endpoint URL headers, nothing secret), the config version, when it was
 * loaded, the last reload error, if any, and the live version's warnings
 * (registry lint: overlapping cards, actions without side_effects, unused widgets).
 */
import type { RequestHandler } from 'express';
import type { AgentCard, PublicAgentCard, Registry } from '../registry/index.js';

/** Builds the handler for the registry snapshot route. */
export function createAgentsHandler(options: {
  registry: Registry;
  publicCard: (card: AgentCard) => PublicAgentCard;
}): RequestHandler {
  return (_request, response) => {
    const snapshot = options.registry.current();
    response.json({
      version: snapshot.version,
      loaded_at: snapshot.loadedAt,
      last_error: options.registry.lastError(),
      // Registry lint and deprecations of the live version: it loaded, but may not route as meant.
      warnings: (snapshot.warnings ?? []).map((warning) => ({ line: warning.line, col: warning.col, pointer: warning.pointer, message: warning.message })),
      agents: snapshot.agents.map((card) => options.publicCard(card)),
    });
  };
}
