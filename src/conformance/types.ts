/**
 * Shapes of a conformance run (`switchboard check-agent`, CONTRACT §6 v2).
 * Levels follow the A2A TCK: a MUST failure means Switchboard would treat the
 * agent's replies as failed sub-tasks; a SHOULD failure is a robustness gap.
 */
import type { ValidateFunction } from 'ajv';

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
}

/** The agent under test, from a URL or from a registry card. */
export interface ConformanceTarget {
  readonly url: string;
  /** Unset: detected from the first reply's content-type. */
  readonly protocol?: 'http-json' | 'http-sse' | 'a2a';
  /** Card headers (`${VAR}` resolved); sent, never printed. */
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** The card's compiled `output_schema`, when checking a registered agent. */
  readonly validateOutput?: ValidateFunction;
  /** Keys the card declares as required (a request without them should not complete). */
  readonly requiredKeys: readonly string[];
  /** Inputs sent with the well-formed requests. */
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly agentId?: string;
}

/** The whole run. `passed` is true when no MUST check failed. */
export interface ConformanceReport {
  readonly target: { readonly url: string; readonly protocol: string; readonly agent_id?: string };
  readonly checks: readonly CheckResult[];
  readonly passed: boolean;
}
