/**
 * What every consumer of a turn's events reads off them: whether an event is the complete answer
 * (not a streamed piece of it), the answer, and the outcome word `done` carried.
 */
import type { ResponseState } from './response-state.js';

/** Where an event says its stage and state. */
interface StageAndState {
  stage?: unknown;
  state?: Record<string, unknown>;
}

/**
 * An event as the graph writes it (`stage`, `state` at the top), as it goes out (under
 * `metadata`), or as read back from storage (the same, every field unchecked).
 */
export type StagedEvent = { metadata?: StageAndState } | StageAndState;

function stageAndState(event: StagedEvent): StageAndState {
  return 'metadata' in event ? (event.metadata ?? {}) : (event as StageAndState);
}

/** Whether the event is a streamed piece of an answer (`final` with `state.delta: true`). */
export function isAnswerDelta(event: StagedEvent): boolean {
  const { stage, state } = stageAndState(event);
  return stage === 'final' && state?.delta === true;
}

/** Whether the event is a complete `final` (the whole answer, not a streamed piece of it). */
export function isCompleteFinal(event: StagedEvent): boolean {
  const { stage, state } = stageAndState(event);
  return stage === 'final' && state?.delta !== true;
}

/** The last complete `final` event of a turn, if it sent one. */
export function completeFinalOf<E extends StagedEvent>(events: readonly E[]): E | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    if (isCompleteFinal(events[index]!)) return events[index];
  }
  return undefined;
}

/** The answer the user is shown: the final answer, then the escalation notice when the turn was handed to a human. */
export function answerOf(events: readonly ResponseState[]): string {
  const final = completeFinalOf(events)?.content ?? '';
  const escalation = [...events].reverse().find((event) => event.metadata.stage === 'escalate')?.content ?? '';
  return [final, escalation].filter((text) => text.trim() !== '').join('\n\n');
}

/** The turn's `done` event, if it sent one. */
export function doneOf(events: readonly ResponseState[]): ResponseState | undefined {
  return events.find((event) => event.metadata.stage === 'done');
}

/** The outcome word a `done` event carries in `metadata.state.outcome` (undefined when it carries none). */
export function outcomeOf(done: ResponseState | undefined): string | undefined {
  const outcome = done?.metadata.state?.outcome;
  return typeof outcome === 'string' ? outcome : undefined;
}
