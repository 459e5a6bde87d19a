/**
 * The outcome of a finished turn (docs/api.md#conversation-rules, "Outcome"): the one word the
 * `done` event carries in `metadata.state.outcome`, `/metrics` counts the turn
 * under and a front end shows. Decided once, here, from the lifecycle of the
 * turn and the events it sent (the same facts the client saw):
 *
 * - a turn stopped before its end (cancelled, client gone, interrupted) is
 *   `cancelled`; one that broke is `failed`;
 * - `escalated` when it handed the user to a human;
 * - `failed` when tasks failed and none succeeded nor waits on the user;
 * - `unresolved` when the verify step found the results insufficient;
 * - `partial` when some tasks failed, or some succeeded while others wait;
 * - `input_required` when keys are missing (asked for) or the turn asks which agent is meant, then
 *   `awaiting_confirmation` when a side effect is held for the user's yes;
 * - else `completed` (every planned task ran and succeeded, or nothing was
 *   planned: a direct answer).
 */
import type { TurnOutcome as Lifecycle } from '../store/index.js';
import { completeFinalOf, type ResponseState } from '../events/index.js';

/** Every outcome word, in the contract's order. */
export const TURN_OUTCOMES = ['completed', 'partial', 'failed', 'input_required', 'awaiting_confirmation', 'escalated', 'unresolved', 'cancelled'] as const;

export type TurnOutcomeWord = (typeof TURN_OUTCOMES)[number];

export function isTurnOutcomeWord(value: unknown): value is TurnOutcomeWord {
  return typeof value === 'string' && (TURN_OUTCOMES as readonly string[]).includes(value);
}

/** The outcome of a turn with this lifecycle that sent these events. */
export function decideTurnOutcome(lifecycle: Lifecycle, events: readonly ResponseState[]): TurnOutcomeWord {
  if (lifecycle === 'cancelled' || lifecycle === 'aborted' || lifecycle === 'interrupted') return 'cancelled';
  if (lifecycle === 'error') return 'failed';
  if (events.some((event) => event.metadata.stage === 'escalate')) return 'escalated';
  const final = completeFinalOf(events);
  // The final event's task list is the turn's record (it includes tasks refused before dispatch, which send no agent event).
  const tasks = finalTaskStatuses(final);
  const completed = tasks
    ? tasks.filter((status) => status === 'completed').length
    : events.filter((event) => event.metadata.stage === 'agent_done' && event.metadata.state?.status !== 'input_required').length;
  const failed = tasks
    ? tasks.filter((status) => status === 'failed' || status === 'skipped').length
    : events.filter((event) => event.metadata.stage === 'agent_failed').length;
  const needsInput =
    (final?.metadata.semantic_info ?? []).length > 0 ||
    (final?.metadata.clarification?.options ?? []).length > 0 ||
    (tasks ?? []).some((status) => status === 'input_required' || status === 'parked') ||
    events.some((event) => event.metadata.stage === 'agent_done' && event.metadata.state?.status === 'input_required');
  const needsConfirmation = pendingConfirmations(final) > 0 || (tasks ?? []).some((status) => status === 'awaiting_confirmation');
  const waiting = needsInput || needsConfirmation;
  if (failed > 0 && completed === 0 && !waiting) return 'failed';
  if (verifiedInsufficient(final)) return 'unresolved';
  if (failed > 0 || (completed > 0 && waiting)) return 'partial';
  if (needsInput) return 'input_required';
  if (needsConfirmation) return 'awaiting_confirmation';
  return 'completed';
}

/** Whether a complete final event says the verify step found the results insufficient (`state.verification.sufficient: false`). */
export function verifiedInsufficient(final: ResponseState | undefined): boolean {
  const verification = final?.metadata.state?.verification;
  return typeof verification === 'object' && verification !== null && (verification as { sufficient?: unknown }).sufficient === false;
}

/** Side-effect tasks a final event asks the user to confirm (`metadata.confirmation`). */
function pendingConfirmations(event: ResponseState | undefined): number {
  const list = (event?.metadata as { confirmation?: unknown } | undefined)?.confirmation;
  return Array.isArray(list) ? list.length : 0;
}

/** The task statuses a final event lists (`state.tasks[].status`), or undefined when it lists none. */
function finalTaskStatuses(event: ResponseState | undefined): string[] | undefined {
  const list = event?.metadata.state?.tasks;
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((task) => (task && typeof task === 'object' && typeof (task as { status?: unknown }).status === 'string' ? [(task as { status: string }).status] : []));
}
