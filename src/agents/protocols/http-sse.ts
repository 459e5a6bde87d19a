/**
 * `http-sse`: one POST answered with `text/event-stream`. `progress` events are
 * relayed as they arrive; the first `result` event ends the call (we stop
 * reading there, so an agent that keeps the stream open does not hold us).
 * Events are parsed by eventsource-parser, never by hand.
 *
 * Two size limits: one event (the `result` included) may not pass the reply
 * cap, and the whole stream may not pass the larger stream cap, so a chatty
 * agent's megabytes of progress do not cost it its result while a flood
 * still ends. The text is consumed as it comes, never held whole.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { safeJsonParse } from '../../util/index.js';
import type { EnvelopeValidator } from '../reply-envelope.js';
import type { AttemptResult, ProtocolAdapter, ProtocolAttempt } from './protocol-adapter.js';
import type { AgentHttpReply } from '../agent-transport.js';
import {
  cancelQuietly,
  describeTarget,
  isSuccess,
  parseReplyText,
  postJson,
  readBoundedBody,
  readFailure,
  statusFailure,
} from './http-common.js';

/** Creates the adapter for agents that stream `progress` events and one `result`. */
export function createHttpSseAdapter({ envelope }: { envelope: EnvelopeValidator }): ProtocolAdapter {
  return {
    protocol: 'http-sse',
    async invoke(attempt) {
      const sent = await postJson(attempt, 'text/event-stream');
      if (!sent.ok) return sent.result;
      const { response } = sent;
      if (!isSuccess(response)) return statusFailure(response, attempt.url);
      const contentType = response.header('content-type') ?? '';
      if (!contentType.toLowerCase().startsWith('text/event-stream')) {
        await cancelQuietly(response);
        return {
          ok: false,
          code: 'bad_body',
          reason: `${describeTarget(attempt.url)} answered with content-type "${contentType || 'none'}" instead of text/event-stream`,
        };
      }
      return readEventStream(response, attempt, envelope);
    },
  };
}

async function readEventStream(response: AgentHttpReply, attempt: ProtocolAttempt, envelope: EnvelopeValidator): Promise<AttemptResult> {
  let resultData: string | undefined;
  let progressCount = 0;
  // Bytes fed since the last chunk that completed an event: bounds a single event (and garbage without event breaks).
  let pendingBytes = 0;
  let eventCompleted = false;
  let eventTooLarge = false;
  const parser = createParser({
    onEvent(event: EventSourceMessage) {
      eventCompleted = true;
      if (resultData !== undefined || eventTooLarge) return;
      if (Buffer.byteLength(event.data, 'utf8') > attempt.maxResponseBytes) {
        eventTooLarge = true;
        return;
      }
      if (event.event === 'result') resultData = event.data;
      else if (event.event === 'progress') {
        progressCount++;
        relayProgress(event.data, attempt.onProgress);
      }
    },
  });
  const read = await readBoundedBody(
    response,
    attempt.maxStreamBytes,
    (text) => {
      eventCompleted = false;
      parser.feed(text);
      pendingBytes = eventCompleted ? 0 : pendingBytes + Buffer.byteLength(text, 'utf8');
      if (pendingBytes > attempt.maxResponseBytes) eventTooLarge = true;
      return resultData !== undefined || eventTooLarge;
    },
    { keepText: false },
  );
  if (eventTooLarge) return readFailure({ ok: false, kind: 'too_large', bytesRead: pendingBytes }, attempt, 'one event of the event stream');
  if (resultData !== undefined) return parseReplyText(envelope, resultData, 'the result event');
  if (!read.ok && read.kind === 'too_large') return readFailure({ ...read, limit: attempt.maxStreamBytes }, attempt, 'the event stream');
  // As in the SSE spec, an event whose closing blank line never came is discarded.
  const cause = read.ok ? 'ended' : 'broke off';
  return {
    ok: false,
    code: 'stream_incomplete',
    reason: `the event stream from ${describeTarget(attempt.url)} ${cause} without a result event (after ${progressCount} progress events)`,
  };
}

/** Passes a progress event's `content` on; a malformed one is skipped, a throwing listener is contained. */
function relayProgress(data: string, onProgress: ((content: string) => void) | undefined): void {
  if (!onProgress) return;
  const parsed = safeJsonParse(data);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return;
  const content = (parsed.value as { content?: unknown }).content;
  if (typeof content !== 'string' || content === '') return;
  try {
    onProgress(content);
  } catch {
    // A listener's bug must not fail the sub-task.
  }
}
