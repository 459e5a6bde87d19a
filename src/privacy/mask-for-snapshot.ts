/**
 * Masking with the personal-data kinds of one registry snapshot, for code that
 * holds a snapshot rather than the process's masking (graph nodes: escalation
 * cards, memory blocks of prompts).
 */
import type { RegistrySnapshot } from '../registry/index.js';
import { createPiiMasker, type PiiMasker } from './pii-masker.js';

const maskers = new WeakMap<RegistrySnapshot, PiiMasker>();

/**
 * The masker for the built-in kinds plus the snapshot's `pii_patterns`: one
 * per snapshot (its memory of masked texts is shared by every turn on it).
 */
export function maskForSnapshot(snapshot: RegistrySnapshot): PiiMasker {
  let masker = maskers.get(snapshot);
  if (!masker) maskers.set(snapshot, (masker = createPiiMasker(snapshot.supervisor.piiPatterns ?? [])));
  return masker;
}

/**
 * The escalation card (docs/api.md#conversation-rules) with personal data masked in every
 * field: call this on the finished card before it is emitted, stored or
 * POSTed to a ticket system.
 */
export function maskEscalationCard<T>(snapshot: RegistrySnapshot, card: T): T {
  return maskForSnapshot(snapshot).maskDeep(card);
}
