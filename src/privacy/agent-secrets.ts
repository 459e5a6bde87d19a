/**
 * Header values of the registry's agents are secrets of their own agent. An
 * agent that echoes its token in its output must not hand it to the agent that
 * consumes that output, so request bodies are cleaned of every other agent's
 * header values before they are sent.
 */
import type { RegistrySnapshot } from '../registry/index.js';
import { createDisguisedSecrets, createTextScrubber, credentialParts, secretTerms, type DisguisedSecrets } from '../text/index.js';

/** Header values of every agent in the snapshot except `exceptAgentId` (short values are not secrets). */
export function agentSecrets(snapshot: RegistrySnapshot, exceptAgentId?: string): string[] {
  const values = new Set<string>();
  for (const card of snapshot.agents) {
    if (card.id === exceptAgentId) continue;
    for (const value of Object.values(card.endpoint.headers)) if (value.length >= 4) values.add(value);
  }
  return [...values];
}

/** The disguised forms of a snapshot's secrets, computed once per snapshot and dropped with it. */
const disguisedOf = new WeakMap<RegistrySnapshot, DisguisedSecrets>();

/**
 * Every disguised form (case, invisible characters, spaces, percent, hex,
 * base64 and base64url) of the secret parts of every agent's header values,
 * computed once per registry snapshot and shared by all of its guards
 * (`text/disguised-secrets.ts`).
 */
export function disguisedAgentSecrets(snapshot: RegistrySnapshot): DisguisedSecrets {
  let secrets = disguisedOf.get(snapshot);
  if (!secrets) disguisedOf.set(snapshot, (secrets = createDisguisedSecrets(agentSecrets(snapshot).flatMap((value) => credentialParts(value)))));
  return secrets;
}

/** A deep copy of `value` with every secret redacted from its strings (keys included). */
export function redactSecretsDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const { scrub } = createTextScrubber({ terms: secretTerms(secrets) });
  const visit = (item: unknown): unknown => {
    if (typeof item === 'string') return scrub(item);
    if (Array.isArray(item)) return item.map(visit);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(Object.entries(item).map(([key, child]) => [scrub(key), visit(child)]));
    }
    return item;
  };
  return visit(value) as T;
}
