/**
 * The process's current masking: the built-in kinds plus the live registry's
 * `pii_patterns`, swapped in on every reload. The logger and the storage
 * wrapper hold this object and always mask with the current patterns.
 */
import type { PiiPattern } from '../registry/index.js';
import { createPiiMasker, type PiiMasker } from './pii-masker.js';

/** A masker whose extra patterns can be replaced (on registry reload). */
export interface PiiMasking extends PiiMasker {
  /** Masks with these registry patterns from now on. */
  use(patterns: readonly PiiPattern[]): void;
}

/** Creates a switchable masking, starting with the built-in kinds only. */
export function createPiiMasking(patterns: readonly PiiPattern[] = []): PiiMasking {
  let current = createPiiMasker(patterns);
  return {
    mask: (text) => current.mask(text),
    maskDeep: (value) => current.maskDeep(value),
    maskFresh: (text) => (current.maskFresh ?? current.mask)(text),
    use(next) {
      current = createPiiMasker(next);
    },
  };
}
