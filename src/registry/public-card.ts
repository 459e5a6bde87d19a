/**
 * The public view of a capability card (for `GET /v1/agents` and prompts).
 * Endpoint headers are left out, and so is the url: after `${VAR}`
 * interpolation it may carry a credential (userinfo, a token in the query),
 * and callers outside the process have no use for where an agent lives.
 */
import { extractToJson } from './extract-spec.js';
import type { AgentCard, PublicAgentCard } from './types.js';

/** A plain, JSON-ready copy of a card with nothing secret in it. */
export function toPublicCard(card: AgentCard): PublicAgentCard {
  return {
    id: card.id,
    name: card.name,
    description: card.description,
    ...(card.names ? { names: { ...card.names } } : {}),
    ...(card.descriptions ? { descriptions: { ...card.descriptions } } : {}),
    enabled: card.enabled,
    examples: [...card.examples],
    keywords: [...card.keywords],
    depends_on: [...card.dependsOn],
    protocol: card.endpoint.protocol,
    required_semantic_keys: card.requiredKeys.map((spec) => ({
      key: spec.key,
      description: spec.description,
      ...(spec.descriptions ? { descriptions: { ...spec.descriptions } } : {}),
      widget: spec.widget,
      extract: extractToJson(spec.extract),
      ...(spec.remember ? { remember: true as const } : {}),
    })),
    ...(card.inputSchema ? { input_schema: structuredClone(card.inputSchema) as Record<string, unknown> } : {}),
    ...(card.outputSchema ? { output_schema: structuredClone(card.outputSchema) as Record<string, unknown> } : {}),
    ...(card.a2aCard
      ? { a2a_card: { url: publicUrl(card.a2aCard.url), ...(card.a2aCard.fetchedAt ? { fetched_at: card.a2aCard.fetchedAt } : {}), ...(card.a2aCard.error ? { error: card.a2aCard.error } : {}) } }
      : {}),
    ...(card.inputModes ? { input_modes: [...card.inputModes] } : {}),
    ...(card.outputModes ? { output_modes: [...card.outputModes] } : {}),
  };
}

/** A card url without userinfo, query or fragment (they may carry a credential). */
function publicUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '';
  }
}
