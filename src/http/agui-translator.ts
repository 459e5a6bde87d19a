/**
 * A turn's events as AG-UI events (docs/api.md#routes, `POST /v1/agui`), in an
 * order the AG-UI client's own checks (`verifyEvents`) accept:
 *
 * - STEP_STARTED / STEP_FINISHED per stage edge the stage table marks as a step;
 * - the answer as one assistant text message: TEXT_MESSAGE_START at the first
 *   streamed piece, one TEXT_MESSAGE_CONTENT per piece as the model streams it
 *   (`final` with `state.delta: true`, already held and cleaned by the event
 *   pipeline), TEXT_MESSAGE_END with the complete answer. The complete answer
 *   usually extends what was streamed (a confirmation prompt after the body):
 *   the rest goes as one more delta. When it does not (notices open the
 *   answer, or the model's stream broke and the answer was composed without
 *   it) the message is ended and a MESSAGES_SNAPSHOT (the run's input messages
 *   and the complete answer under the streamed message's id) puts the complete
 *   answer in its place: AG-UI has no other event that replaces text already
 *   sent, and a client always ends holding the same answer as `POST /v1/chat`.
 *   Without a model nothing is streamed: the composed answer is whole at once
 *   and goes as one TEXT_MESSAGE_CONTENT (cutting it up would only fake a stream);
 * - an escalation notice as a message of its own;
 * - CUSTOM `semantic_info`, `confirmation`, `clarification` after the answer;
 * - RUN_FINISHED (its result names the outcome) or RUN_ERROR.
 */
import { randomUUID } from 'node:crypto';
import { EventType, type BaseEvent, type Message } from '@ag-ui/core';
import { isAnswerDelta, isCompleteFinal, stageRow, type ResponseState } from '../events/index.js';
import { readTurnEvents } from './turn-outcome.js';

/** The AG-UI step a stage opens or closes, as the stage table says (undefined: the stage is not a step edge). */
function stepOf(event: ResponseState): { name: string; edge: 'open' | 'close' } | undefined {
  const row = stageRow(event.metadata.stage);
  if (!row?.step || !row.section) return undefined;
  const { name, edge } = row.section;
  if (name !== 'agent') return { name, edge };
  const taskId = typeof event.metadata.state?.task_id === 'string' ? event.metadata.state.task_id : '';
  return { name: `agent:${event.agent_id}:${taskId}`, edge };
}

const event = (fields: Record<string, unknown>): BaseEvent => fields as unknown as BaseEvent;

/** One whole assistant message: start, content (when there is text), end. */
function wholeMessage(text: string): BaseEvent[] {
  const messageId = `msg_${randomUUID()}`;
  return [
    event({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }),
    event({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text }),
    event({ type: EventType.TEXT_MESSAGE_END, messageId }),
  ];
}

/** Turns the turn's events into AG-UI events; `inputMessages` are the run's input (what a snapshot keeps). */
export function createAguiTranslator(threadId: string, runId: string, inputMessages: readonly Message[] = []) {
  const open = new Set<string>();
  const seen: ResponseState[] = [];
  /** The answer's text message while it streams. */
  let answer: { messageId: string; streamed: string } | undefined;
  const closeSteps = (): BaseEvent[] => {
    const events = [...open].map((stepName) => event({ type: EventType.STEP_FINISHED, stepName }));
    open.clear();
    return events;
  };
  /** Ends the streaming answer's message, if one is open. */
  const endAnswer = (): BaseEvent[] => {
    if (!answer) return [];
    const { messageId } = answer;
    answer = undefined;
    return [event({ type: EventType.TEXT_MESSAGE_END, messageId })];
  };
  /** The streamed message's ending once the complete answer is known. */
  const completeAnswer = (complete: string): BaseEvent[] => {
    if (!answer) return complete === '' ? [] : wholeMessage(complete);
    const { messageId, streamed } = answer;
    if (complete.startsWith(streamed)) {
      const rest = complete.slice(streamed.length);
      return [...(rest === '' ? [] : [event({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: rest })]), ...endAnswer()];
    }
    // What was streamed is not the start of the answer: the snapshot puts the complete answer in its place.
    const messages = [...inputMessages, { id: messageId, role: 'assistant', content: complete }];
    return [...endAnswer(), event({ type: EventType.MESSAGES_SNAPSHOT, messages })];
  };
  return {
    started: (): BaseEvent => event({ type: EventType.RUN_STARTED, threadId, runId }),
    translate(turnEvent: ResponseState): BaseEvent[] {
      seen.push(turnEvent);
      const step = stepOf(turnEvent);
      if (step?.edge === 'open' && !open.has(step.name)) {
        open.add(step.name);
        return [event({ type: EventType.STEP_STARTED, stepName: step.name })];
      }
      if (step?.edge === 'close' && open.has(step.name)) {
        open.delete(step.name);
        return [event({ type: EventType.STEP_FINISHED, stepName: step.name })];
      }
      if (isAnswerDelta(turnEvent)) {
        if (turnEvent.content === '') return [];
        const out: BaseEvent[] = [];
        if (!answer) {
          answer = { messageId: `msg_${randomUUID()}`, streamed: '' };
          out.push(event({ type: EventType.TEXT_MESSAGE_START, messageId: answer.messageId, role: 'assistant' }));
        }
        answer.streamed += turnEvent.content;
        out.push(event({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: answer.messageId, delta: turnEvent.content }));
        return out;
      }
      if (isCompleteFinal(turnEvent)) {
        // A streamed answer ends inside the summary's step; a whole one follows the closed steps, as it always did.
        const out = answer ? [...completeAnswer(turnEvent.content), ...closeSteps()] : [...closeSteps(), ...completeAnswer(turnEvent.content)];
        const ending = readTurnEvents(seen);
        if (ending.semanticInfo.length > 0) out.push(event({ type: EventType.CUSTOM, name: 'semantic_info', value: ending.semanticInfo }));
        if (ending.confirmation.length > 0) out.push(event({ type: EventType.CUSTOM, name: 'confirmation', value: ending.confirmation }));
        if (ending.clarification) out.push(event({ type: EventType.CUSTOM, name: 'clarification', value: { options: ending.clarification.options } }));
        return out;
      }
      if (turnEvent.metadata.stage === 'escalate' && turnEvent.content !== '') {
        // Handed to a human: the notice is a message of its own (after the answer, when there was one).
        return [...endAnswer(), ...closeSteps(), ...wholeMessage(turnEvent.content)];
      }
      if (turnEvent.type === 'done') {
        const out = [...endAnswer(), ...closeSteps()];
        const ending = readTurnEvents(seen);
        if (ending.outcome === 'error') {
          out.push(event({ type: EventType.RUN_ERROR, message: 'the turn failed', code: 'INTERNAL' }));
        } else {
          out.push(event({ type: EventType.RUN_FINISHED, threadId, runId, result: { outcome: ending.outcome, session_id: threadId } }));
        }
        return out;
      }
      return [];
    },
    failed: (message: string): BaseEvent[] => [...endAnswer(), ...closeSteps(), event({ type: EventType.RUN_ERROR, message, code: 'INTERNAL' })],
  };
}
