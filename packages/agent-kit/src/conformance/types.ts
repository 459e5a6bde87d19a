/**
 * Shapes of a conformance run (`switchboard check-agent`, docs/api.md#commands).
 * Levels follow the A2A TCK: a MUST failure means Switchboard would treat the
 * agent's replies as failed sub-tasks; a SHOULD failure is a robustness gap.
 */
import type { AgentReply } from '../wire.js';

/** How binding a check is. */
export type CheckLevel = 'MUST' | 'SHOULD';

/** `skip`: the agent's replies gave nothing to judge (e.g. no `completed` reply for `output_schema`). */
export type CheckOutcome = 'pass' | 'fail' | 'skip';

/** One line of the report. */
export interface CheckResult {
  /** Stable snake_case name, e.g. `envelope_shape`. */
  readonly id: string;
  readonly level: CheckLevel;
  readonly outcome: CheckOutcome;
  /** What was seen, in one sentence. */
  readonly detail: string;
  /** On a failure: the request sent (method, URL, body; no header values). */
  readonly sent?: string;
  /** On a failure: what came back (status, content type, body or events). */
  readonly received?: string;
  /** On a failure: what the check expected. */
  readonly expected?: string;
}

/** The agent under test, from a URL or from a registry card. */
export interface ConformanceTarget {
  readonly url: string;
  /** Unset: detected from the first reply's content-type. */
  readonly protocol?: 'http-json' | 'http-sse';
  /** Card headers (`${VAR}` resolved); sent, never printed. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Why a `completed` reply's output fails the agent's `output_schema` (undefined: it meets it); absent when no schema is known. */
  readonly checkOutput?: (reply: AgentReply) => string | undefined;
  /** Keys the card declares as required (a request without them should not complete). */
  readonly requiredKeys: readonly string[];
  /** Inputs sent with the well-formed requests. */
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly agentId?: string;
  /** The card says the agent changes the world (books, pays): a retry with the same task_id must then return the same output. */
  readonly sideEffects?: boolean;
}

/** The whole run. `passed` is true when no MUST check failed. */
export interface ConformanceReport {
  readonly target: { readonly url: string; readonly protocol: string; readonly agent_id?: string };
  readonly checks: readonly CheckResult[];
  readonly passed: boolean;
}
