/** The human-readable report (one line per check, then a summary), shared with the agent kit. */
export { formatReport } from '../../packages/agent-kit/src/conformance/format-report.js';
