/**
 * The offline verifier: it never judges, so the rule check decides alone
 * (offline mode, or the verify step without a model).
 */
import type { Verifier } from './types.js';

/** Creates the offline verifier. */
export function createOfflineVerifier(): Verifier {
  return { usesModel: false, judge: async () => undefined };
}
