/**
 * What changed between two registry snapshots, for the reload log line and
 * for components that rebuild per-agent state (matcher indexes, breakers).
 */
import { extractToJson } from './extract-spec.js';
import type { AgentCard, RegistryDiff, RegistrySnapshot } from './types.js';

/**
 * Ids added, removed, modified (any field other than `enabled` changed),
 * enabled and disabled. An agent can be both modified and enabled/disabled.
 */
export function diffSnapshots(previous: RegistrySnapshot, next: RegistrySnapshot): RegistryDiff {
  const diff: RegistryDiff = { added: [], removed: [], modified: [], enabled: [], disabled: [] };
  for (const card of next.agents) {
    const before = previous.byId.get(card.id);
    if (!before) {
      diff.added.push(card.id);
      continue;
    }
    if (before.enabled !== card.enabled) (card.enabled ? diff.enabled : diff.disabled).push(card.id);
    if (comparableCard(before) !== comparableCard(card)) diff.modified.push(card.id);
  }
  for (const card of previous.agents) if (!next.byId.has(card.id)) diff.removed.push(card.id);
  return diff;
}

/** True when nothing changed. */
export function isEmptyDiff(diff: RegistryDiff): boolean {
  return Object.values(diff).every((ids: string[]) => ids.length === 0);
}

/** A canonical string of everything but `enabled` (headers included: a rotated token is a change). */
function comparableCard(card: AgentCard): string {
  return JSON.stringify({
    name: card.name,
    description: card.description,
    examples: card.examples,
    keywords: card.keywords,
    dependsOn: card.dependsOn,
    endpoint: card.endpoint,
    requiredKeys: card.requiredKeys.map((spec) => ({ ...spec, extract: extractToJson(spec.extract) })),
    inputSchema: card.inputSchema,
    outputSchema: card.outputSchema,
  });
}
