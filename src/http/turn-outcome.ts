/**
 * How a finished turn ended, read from the events it sent — the same facts a
 * chat client sees — for the protocols that report a turn in their own terms
 * (A2A task states, AG-UI events): the outcome word of docs/api.md#conversation-rules, the
 * keys still missing and the side effects held for confirmation.
 */
import { turnOutcomeLabel, type ConfirmationRequest, type ResponseState, type SemanticInfo } from '../turn/index.js';
import type { Clarification } from '../intent/index.js';

export interface TurnEnding {
  /** completed · partial · failed · input_required · awaiting_confirmation · escalated · unresolved · cancelled (· aborted · error). */
  outcome: string;
  semanticInfo: SemanticInfo[];
  confirmation: ConfirmationRequest[];
  /** The options of the clarification the turn asked (its final event's), when it asked one. */
  clarification?: Clarification;
}

/** The complete `final` event of a turn (not a streamed piece of it). */
export function finalOf(events: readonly ResponseState[]): ResponseState | undefined {
  return [...events].reverse().find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true);
}

/** The answer the user is shown: the final answer, then the escalation notice when the turn was handed to a human. */
export function answerOf(events: readonly ResponseState[]): string {
  const final = finalOf(events)?.content ?? '';
  const escalation = [...events].reverse().find((event) => event.metadata.stage === 'escalate')?.content ?? '';
  return [final, escalation].filter((text) => text.trim() !== '').join('\n\n');
}

/** Reads the ending of a turn from its events. */
export function readTurnEvents(events: readonly ResponseState[]): TurnEnding {
  const final = finalOf(events);
  const done = events.find((event) => event.type === 'done');
  // The final event repeats what is still needed; when it does not, the last stage that said so (plan_done, agent_done) counts.
  const lastNonEmpty = <T>(read: (event: ResponseState) => T[] | undefined): T[] => {
    const fromFinal = final ? read(final) : undefined;
    if (fromFinal && fromFinal.length > 0) return fromFinal;
    return [...events].reverse().map(read).find((list) => list !== undefined && list.length > 0) ?? [];
  };
  const semanticInfo = lastNonEmpty((event) => event.metadata.semantic_info);
  const confirmation = lastNonEmpty((event) => event.metadata.confirmation);
  const clarification = final?.metadata.clarification;
  const stated = done?.metadata.state?.outcome;
  if (stated === 'cancelled' || stated === 'aborted' || stated === 'error') return { outcome: stated, semanticInfo, confirmation };
  if (clarification && clarification.options.length > 0) return { outcome: 'input_required', semanticInfo, confirmation, clarification };
  const label = turnOutcomeLabel('completed', events);
  if (semanticInfo.length === 0 && confirmation.length > 0 && (label === 'input_required' || label === 'completed')) {
    return { outcome: 'awaiting_confirmation', semanticInfo, confirmation };
  }
  const outcome = typeof stated === 'string' && stated !== 'completed' && label === 'completed' ? stated : label;
  return { outcome, semanticInfo, confirmation };
}
