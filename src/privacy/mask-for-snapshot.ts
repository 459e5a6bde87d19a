/**
 * Masking with the personal-data kinds of one registry snapshot, for code that
 * holds a snapshot rather than the process's masking (graph nodes: escalation
 * cards, memory blocks of prompts).
 */
import type { RegistrySnapshot } from '../registry/index.js';
import { createPiiMasker, type PiiMasker } from './pii-masker.js';

/** A masker for the built-in kinds plus the snapshot's `pii_patterns`. */
export function maskForSnapshot(snapshot: RegistrySnapshot): PiiMasker {
  return createPiiMasker(snapshot.supervisor.piiPatterns ?? []);
}

/**
 * The escalation card (docs/api.md#conversation-rules) with personal data masked in every
 * field: call this on the finished card before it is emitted, stored or
 * POSTed to a ticket system.
 */
export function maskEscalationCard<T>(snapshot: RegistrySnapshot, card: T): T {
  return maskForSnapshot(snapshot).maskDeep(card);
}
