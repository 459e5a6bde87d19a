/** The report and target types of the conformance suite (defined with the suite, in the agent kit). */
export type { CheckLevel, CheckOutcome, CheckResult, ConformanceReport, ConformanceTarget } from '../../packages/agent-kit/src/conformance/types.js';
