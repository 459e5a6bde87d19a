/**
 * How a finished turn ended, read from the events it sent — the same facts a
 * chat client sees — for the protocols that report a turn in their own terms
 * (A2A task states, AG-UI events): the outcome word of docs/api.md#conversation-rules, the
 * keys still missing and the side effects held for confirmation.
 */
import { completeFinalOf, doneOf, outcomeOf, type Clarification, type ConfirmationRequest, type ResponseState, type SemanticInfo } from '../events/index.js';
import { turnOutcomeLabel } from '../turn/index.js';

export interface TurnEnding {
  /** completed · partial · failed · input_required · awaiting_confirmation · escalated · unresolved · cancelled (· aborted · error). */
  outcome: string;
  semanticInfo: SemanticInfo[];
  confirmation: ConfirmationRequest[];
  /** The options of the clarification the turn asked (its final event's), when it asked one. */
  clarification?: Clarification;
}

/** Reads the ending of a turn from its events. */
export function readTurnEvents(events: readonly ResponseState[]): TurnEnding {
  const final = completeFinalOf(events);
  // The final event repeats what is still needed; when it does not, the last stage that said so (plan_done, agent_done) counts.
  const lastNonEmpty = <T>(read: (event: ResponseState) => T[] | undefined): T[] => {
    const fromFinal = final ? read(final) : undefined;
    if (fromFinal && fromFinal.length > 0) return fromFinal;
    return [...events].reverse().map(read).find((list) => list !== undefined && list.length > 0) ?? [];
  };
  const semanticInfo = lastNonEmpty((event) => event.metadata.semantic_info);
  const confirmation = lastNonEmpty((event) => event.metadata.confirmation);
  const clarification = final?.metadata.clarification;
  const stated = outcomeOf(doneOf(events));
  if (stated === 'cancelled' || stated === 'aborted' || stated === 'error') return { outcome: stated, semanticInfo, confirmation };
  if (clarification && clarification.options.length > 0) return { outcome: 'input_required', semanticInfo, confirmation, clarification };
  const label = turnOutcomeLabel('completed', events);
  if (semanticInfo.length === 0 && confirmation.length > 0 && (label === 'input_required' || label === 'completed')) {
    return { outcome: 'awaiting_confirmation', semanticInfo, confirmation };
  }
  const outcome = typeof stated === 'string' && stated !== 'completed' && label === 'completed' ? stated : label;
  return { outcome, semanticInfo, confirmation };
}
