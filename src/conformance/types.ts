/**
 * The report and target types of the conformance suite. The http-json /
 * http-sse suite and its types live in the agent kit; the server also checks
 * A2A agents (run-a2a-conformance.ts), so its target may name that protocol.
 */
import type { ConformanceTarget as KitConformanceTarget } from '../../packages/agent-kit/src/conformance/types.js';

export type { CheckLevel, CheckOutcome, CheckResult, ConformanceReport } from '../../packages/agent-kit/src/conformance/types.js';

/** The kit's target, whose protocol may also be `a2a` (checked by the A2A suite). */
export interface ConformanceTarget extends Omit<KitConformanceTarget, 'protocol'> {
  readonly protocol?: KitConformanceTarget['protocol'] | 'a2a';
}
