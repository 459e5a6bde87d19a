/**
 * What one registry check returns: the problems it found (`issues` reject the
 * load, `warnings` do not) and, when it builds something, the built value.
 * Each check returns its own findings; the caller concatenates them, so no
 * check decides failure by watching a shared list grow.
 */
import type { ConfigIssue } from './types.js';

/** Problems found by one check. */
export interface Findings {
  readonly issues: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

/** Findings plus the value built; `value` is undefined when it could not be built. */
export interface Checked<T> extends Findings {
  readonly value: T | undefined;
}

/** Concatenates the findings of several checks, in order. */
export function mergeFindings(...parts: readonly Findings[]): { issues: ConfigIssue[]; warnings: ConfigIssue[] } {
  return { issues: parts.flatMap((part) => part.issues), warnings: parts.flatMap((part) => part.warnings) };
}
