/**
 * Model replies name agents loosely: an id with stray spaces or capitals, or
 * the card's display name. One lookup turns such a name into the id of an
 * enabled agent, so the recogniser and the planner accept the same names.
 */
import type { RegistrySnapshot } from './types.js';

/** The enabled agent a model-given id (or, leniently, a card name) refers to; undefined for none or a disabled one. */
export function resolveAgentId(snapshot: RegistrySnapshot, given: string): string | undefined {
  if (typeof given !== 'string') return undefined;
  const trimmed = given.trim();
  const exact = snapshot.byId.get(trimmed) ?? snapshot.byId.get(trimmed.toLowerCase());
  if (exact) return exact.enabled ? exact.id : undefined;
  return snapshot.enabledAgents.find((card) => card.name === trimmed)?.id;
}
