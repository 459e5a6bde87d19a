/**
 * Makes a built snapshot read-only, so code holding one reference can never
 * see it change; a reload swaps in a new snapshot instead.
 */
import type { AgentCard, RegistrySnapshot } from './types.js';

/** Builds the lookup map and deep-freezes the whole snapshot. */
export function freezeSnapshot(parts: Omit<RegistrySnapshot, 'byId' | 'enabledAgents'>): RegistrySnapshot {
  const agents: readonly AgentCard[] = parts.agents;
  const snapshot: RegistrySnapshot = {
    ...parts,
    byId: new FrozenMap(agents.map((card) => [card.id, card] as const)),
    enabledAgents: agents.filter((card) => card.enabled),
  };
  return deepFreeze(snapshot);
}

/** A Map whose mutators throw, so a frozen snapshot's `byId` stays as built. */
class FrozenMap<K, V> extends Map<K, V> {
  #sealed = false;
  constructor(entries: Iterable<readonly [K, V]>) {
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#sealed = true;
  }
  override set(key: K, value: V): this {
    if (this.#sealed) throw new TypeError('registry snapshot is read-only');
    return super.set(key, value);
  }
  override delete(): boolean {
    throw new TypeError('registry snapshot is read-only');
  }
  override clear(): void {
    throw new TypeError('registry snapshot is read-only');
  }
}

/**
 * Freezes plain objects and arrays recursively. Functions (ajv validators write
 * `.errors`) and RegExps (`lastIndex`) stay unfrozen: freezing them breaks them.
 */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || value instanceof RegExp) return value;
  if (value instanceof Map) {
    for (const entry of value.values()) deepFreeze(entry);
    return Object.freeze(value);
  }
  for (const child of Object.values(value as Record<string, unknown>)) {
    if (typeof child !== 'function') deepFreeze(child);
  }
  return Object.freeze(value);
}
