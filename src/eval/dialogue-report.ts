/**
 * Scores dialogue runs (docs/api.md#commands): every expectation of every turn is
 * one check; a dialogue passes when all of its checks pass. The report gives
 * the share of dialogues that pass whole (what `--min` applies to), the
 * checks passed per kind, and for each failing dialogue its first failing
 * turn with what was expected and what happened.
 */
import type { DialogueCase, DialogueExpect } from './dialogue-set.js';
import type { StubCall } from './stub-agents.js';

/** What one turn of a dialogue did, as the stubs and the events show it. */
export interface TurnObservation {
  user: string;
  /** Agents the turn dealt with: called, asked for a key, or held. */
  agents: string[];
  /** Calls the stubs received in this turn. */
  calls: StubCall[];
  /** Keys asked for, per agent. */
  asks: Record<string, string[]>;
  /** Agents whose side effect waits for the user's yes after this turn. */
  held: string[];
  /** The values each held side effect was shown with (what a yes confirms). */
  confirmations: { agentId: string; inputs: Record<string, unknown> }[];
  /** The answer the user saw. */
  answer: string;
  outcome?: string;
  /** Agents a clarification offered as options (empty when the turn did not ask). */
  offered?: string[];
}

export interface DialogueRun {
  case: DialogueCase;
  turns: TurnObservation[];
}

export type CheckKind = keyof DialogueExpect;

export interface DialogueCheck {
  turn: number;
  kind: CheckKind;
  /** The agent the check is about (inputs, asks), if any. */
  agent?: string;
  expected: unknown;
  actual: unknown;
  pass: boolean;
}

export interface DialogueFailure {
  line: number;
  name?: string;
  /** 1-based. */
  turn: number;
  user: string;
  answer: string;
  failed: DialogueCheck[];
}

export interface DialogueSummary {
  dialogues: number;
  passed: number;
  /** passed / dialogues (0 when there are none). */
  share: number;
  checks: number;
  passedChecks: number;
  byKind: Record<string, { passed: number; total: number }>;
  failures: DialogueFailure[];
}

const sameSet = (left: readonly string[], right: readonly string[]) => left.length === right.length && left.every((item) => right.includes(item));
const sameValue = (actual: unknown, expected: string | number) =>
  (typeof actual === 'string' || typeof actual === 'number') && String(actual).normalize('NFKC').trim() === String(expected).normalize('NFKC').trim();

/** The checks of one turn. */
export function checkTurn(expect: DialogueExpect, observed: TurnObservation, turn: number): DialogueCheck[] {
  const checks: DialogueCheck[] = [];
  if (expect.agents) checks.push({ turn, kind: 'agents', expected: [...expect.agents].sort(), actual: observed.agents, pass: sameSet(expect.agents, observed.agents) });
  for (const [agent, values] of Object.entries(expect.inputs ?? {})) {
    const received = observed.calls.filter((call) => call.agentId === agent).map((call) => call.inputs);
    const pass = received.some((inputs) => Object.entries(values).every(([key, value]) => sameValue(inputs[key], value)));
    checks.push({ turn, kind: 'inputs', agent, expected: values, actual: received.length > 0 ? received : 'not called', pass });
  }
  for (const [agent, keys] of Object.entries(expect.asks ?? {})) {
    const asked = observed.asks[agent] ?? [];
    checks.push({ turn, kind: 'asks', agent, expected: [...keys].sort(), actual: [...asked].sort(), pass: sameSet(keys, asked) });
  }
  if (expect.held) checks.push({ turn, kind: 'held', expected: [...expect.held].sort(), actual: observed.held, pass: sameSet(expect.held, observed.held) });
  for (const agent of expect.not_called ?? []) {
    const received = observed.calls.filter((call) => call.agentId === agent).map((call) => call.inputs);
    checks.push({ turn, kind: 'not_called', agent, expected: 'no call', actual: received.length > 0 ? received : 'no call', pass: received.length === 0 });
  }
  return checks;
}

/** Scores every run. */
export function summariseDialogues(runs: readonly DialogueRun[]): DialogueSummary {
  const byKind: Record<string, { passed: number; total: number }> = {};
  const failures: DialogueFailure[] = [];
  let checks = 0;
  let passedChecks = 0;
  let passed = 0;
  for (const run of runs) {
    let firstFailure: DialogueFailure | undefined;
    run.case.turns.forEach((turn, index) => {
      const observed = run.turns[index];
      if (!observed) return;
      const turnChecks = checkTurn(turn.expect, observed, index + 1);
      for (const check of turnChecks) {
        const entry = (byKind[check.kind] ??= { passed: 0, total: 0 });
        entry.total += 1;
        checks += 1;
        if (check.pass) {
          entry.passed += 1;
          passedChecks += 1;
        }
      }
      const failed = turnChecks.filter((check) => !check.pass);
      if (failed.length > 0 && !firstFailure) {
        firstFailure = { line: run.case.line, ...(run.case.name ? { name: run.case.name } : {}), turn: index + 1, user: turn.user, answer: observed.answer, failed };
      }
    });
    if (firstFailure) failures.push(firstFailure);
    else passed += 1;
  }
  return { dialogues: runs.length, passed, share: runs.length === 0 ? 0 : passed / runs.length, checks, passedChecks, byKind, failures };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/** The human-readable report. */
export function formatDialogueReport(summary: DialogueSummary, header: { file: string; mode: string }): string {
  const lines = [
    `Dialogues: ${header.file} (${header.mode})`,
    `  passed whole: ${summary.passed}/${summary.dialogues} (${percent(summary.share)})`,
    `  expectations met: ${summary.passedChecks}/${summary.checks}${summary.checks > 0 ? ` (${percent(summary.passedChecks / summary.checks)})` : ''}`,
  ];
  for (const [kind, entry] of Object.entries(summary.byKind).sort(([left], [right]) => left.localeCompare(right))) {
    lines.push(`    ${kind.padEnd(10)} ${entry.passed}/${entry.total}`);
  }
  if (summary.failures.length > 0) {
    lines.push('  first failing turn of each failing dialogue:');
    for (const failure of summary.failures) {
      lines.push(`    line ${failure.line}${failure.name ? ` (${failure.name})` : ''}, turn ${failure.turn}: "${failure.user}"`);
      for (const check of failure.failed) {
        lines.push(`      ${check.kind}${check.agent ? ` ${check.agent}` : ''}: expected ${JSON.stringify(check.expected)}, got ${JSON.stringify(check.actual)}`);
      }
      if (failure.answer) lines.push(`      answer: ${JSON.stringify(failure.answer.length > 160 ? `${failure.answer.slice(0, 160)}…` : failure.answer)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
