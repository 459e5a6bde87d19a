/**
 * `POST /v1/chat`: one user turn, streamed as SSE (default) or returned as one
 * JSON object (`accept: application/json`).
 *
 * Order matters here. The turn is started before any byte is written, so a
 * refusal from the runner (409 turn in progress, 400) is still a plain JSON
 * error. The turn starts eagerly: the events the runner emits before this code
 * resumes (its first frame) are buffered, then written with the headers in one
 * socket write as soon as the stream is open. A client that
 * goes away aborts the turn's signal exactly once; a finished response never
 * aborts it.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ERROR_CATALOGUE, SystemError, UserError } from '../errors.js';
import { ID_RULES, isValidId } from '../id-patterns.js';
import { completeFinalOf, serialisedEvent, type ResponseState } from '../events/index.js';
import { parseEventId, type StartedTurn, type TurnFeed, type TurnIdempotency, type TurnResult, type TurnRunner } from '../turn/index.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { callerOwner, callerTenant } from './auth.js';
import { createChatRequestValidator } from './chat-request.js';
import { delegationDepthOf } from './delegation-depth.js';
import { sendError } from './error-handler.js';
import { openSseStream, type SseStream } from './sse.js';
import type { StreamTracker } from './stream-tracker.js';
import { holdAdmission } from './turn-admission.js';
import { requireTraceId, traceParentOf } from './trace-id.js';

export interface ChatHandlerOptions {
  turns: TurnRunner;
  logger: Logger;
  metrics: Metrics;
  tracker: StreamTracker;
  heartbeatMs: number;
  maxQueryChars: number;
  /** How long a shutdown waits for a turn to finish after aborting it. */
  shutdownGraceMs: number;
  /** `idempotency-key` handling; absent = the header is ignored. */
  idempotency?: { keys: TurnIdempotency; feed: TurnFeed };
}

/**
 * Where a repeated request resumes: after the `Last-Event-ID` it sent when that
 * id is an event of this same turn (docs/api.md#streams-and-trace-context), else from the
 * turn's start. A malformed id is a 400, as on the GET stream.
 */
function replayStart(request: Request, turnId: string): number {
  const header = request.headers['last-event-id'];
  const lastEventId = Array.isArray(header) ? header[0] : header;
  if (!lastEventId) return 0;
  const named = parseEventId(lastEventId);
  if (!named) throw new UserError('BAD_REQUEST', 'Last-Event-ID must be <turn_id>:<seq> as sent in an event id', { field: 'last-event-id' });
  return named.turnId === turnId ? named.seq : 0;
}

/** Streams (or returns as JSON) the stored events of a turn started earlier under the same idempotency key, after `afterSeq`. */
async function replayTurn(
  response: Response,
  feed: TurnFeed,
  turn: { turnId: string; sessionId: string; afterSeq: number },
  options: { wantsJson: boolean; heartbeatMs: number },
): Promise<void> {
  const controller = new AbortController();
  response.once('close', () => controller.abort());
  response.setHeader('x-session-id', turn.sessionId);
  response.setHeader('x-idempotent-replay', 'true');
  if (options.wantsJson) {
    const events: ResponseState[] = [];
    await feed.follow(turn.turnId, 0, (event) => events.push(JSON.parse(event.data) as ResponseState), controller.signal);
    const final = completeFinalOf(events);
    const after = events.filter((event) => (event.metadata.seq ?? 0) > turn.afterSeq);
    if (!response.headersSent) response.status(200).json({ session_id: turn.sessionId, final_answer: final?.content ?? '', events: after });
    return;
  }
  if (await feed.exhausted(turn.turnId, turn.afterSeq)) {
    // The client already has the whole turn.
    response.status(204).end();
    return;
  }
  const stream = openSseStream(response, { heartbeatMs: options.heartbeatMs });
  try {
    await feed.follow(turn.turnId, turn.afterSeq, (event) => stream.sendSerialised(event.data, `${turn.turnId}:${event.seq}`), controller.signal);
  } finally {
    stream.end();
  }
}

/** Why the turn's signal was aborted; the runner can read it from `signal.reason`. */
export type ChatAbortReason = 'client_disconnected' | 'server_shutdown';

function doneEvent(sessionId: string, seq: number, content: string, state?: Record<string, unknown>): ResponseState {
  return {
    type: 'done',
    content,
    agent_id: 'supervisor',
    is_thinking: false,
    session_id: sessionId,
    metadata: state ? { stage: 'done', seq, state } : { stage: 'done', seq },
  };
}

/** Builds the express handler for `POST /v1/chat` (body already parsed as JSON). */
export function createChatHandler(options: ChatHandlerOptions): RequestHandler {
  const validate = createChatRequestValidator({ maxQueryChars: options.maxQueryChars });
  const { logger, metrics } = options;

  return async (request, response) => {
    const check = validate(request.body);
    if (!check.ok) throw new UserError('BAD_REQUEST', check.message, { field: check.field });
    const traceId = requireTraceId(response);
    const wantsJson = request.accepts(['text/event-stream', 'application/json']) === 'application/json';

    const controller = new AbortController();
    const abort = (reason: ChatAbortReason) => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    let responseClosed = false;
    const closed = new Promise<void>((resolve) => {
      response.once('close', () => {
        responseClosed = true;
        if (!response.writableFinished) abort('client_disconnected');
        resolve();
      });
    });

    const pending: ResponseState[] = [];
    let sink: ((event: ResponseState) => void) | undefined;
    const onEvent = (event: ResponseState) => {
      try {
        if (sink) sink(event);
        else pending.push(event);
      } catch (error) {
        logger.error({ err: error, traceId }, 'failed to forward a turn event');
      }
    };

    const owner = callerOwner(response, check.value.userId);
    const header = request.headers['idempotency-key'];
    const idempotencyKey = options.idempotency && header !== undefined ? (Array.isArray(header) ? header[0] : header) : undefined;
    if (idempotencyKey !== undefined) {
      if (!isValidId('idempotency_key', idempotencyKey)) throw new UserError('BAD_REQUEST', `idempotency-key must be ${ID_RULES.idempotency_key.allowed}`, { field: 'idempotency-key' });
      const claim = await options.idempotency!.keys.claim(owner, idempotencyKey);
      if (claim.kind === 'pending') throw new UserError('TURN_IN_PROGRESS', 'a request with this idempotency-key is still starting its turn');
      if (claim.kind === 'existing') {
        // A repeat (a reconnecting client): never a second turn; the first one's events instead.
        const afterSeq = replayStart(request, claim.turnId);
        await replayTurn(response, options.idempotency!.feed, { ...claim, afterSeq }, { wantsJson, heartbeatMs: options.heartbeatMs });
        return;
      }
    }

    let started: StartedTurn;
    try {
      started = await options.turns.start({ ...check.value, tenant: callerTenant(response), traceId, traceParent: traceParentOf(response), delegationDepth: delegationDepthOf(response) }, { signal: controller.signal, onEvent, eager: true });
    } catch (error) {
      if (idempotencyKey !== undefined) await options.idempotency!.keys.release(owner, idempotencyKey).catch(() => {});
      throw error;
    }
    // A turn that runs on after its client left (on_disconnect "continue") keeps its place in the admission count.
    holdAdmission(response, started.done);
    if (idempotencyKey !== undefined && started.turnId) {
      await options.idempotency!.keys
        .record(owner, idempotencyKey, { turnId: started.turnId, sessionId: started.sessionId })
        .catch((error: unknown) => logger.warn({ err: error, traceId }, 'recording the idempotency key failed'));
    }

    if (responseClosed) {
      // The client left while the turn was being reserved: let it wind down unobserved.
      sink = () => {};
      started.done.catch((error: unknown) => logger.error({ err: error, traceId }, 'turn failed after client left'));
      return;
    }

    metrics.activeStreams.inc();
    let forceEnd: () => void = () => {};
    let graceTimer: NodeJS.Timeout | undefined;
    const untrack = options.tracker.add({
      shutdown: async () => {
        abort('server_shutdown');
        graceTimer = setTimeout(() => forceEnd(), options.shutdownGraceMs);
        await closed;
      },
    });
    void closed.then(() => {
      untrack();
      metrics.activeStreams.dec();
      if (graceTimer) clearTimeout(graceTimer);
    });

    response.setHeader('x-session-id', started.sessionId);
    if (wantsJson) {
      sink = () => {};
      pending.length = 0;
      forceEnd = () => {
        if (!response.headersSent) sendError(response, new SystemError('NOT_READY'));
        else if (!response.writableEnded) response.end();
      };
      await answerAsJson(response, started, () => responseClosed);
      return;
    }

    const stream = openSseStream(response, { heartbeatMs: options.heartbeatMs });
    forceEnd = () => stream.end();
    const relay = createRelay(stream);
    sink = relay.forward;
    for (const event of pending.splice(0)) relay.forward(event);
    // The headers and the turn's first frame leave now, in the loop turn that admitted it.
    stream.flush();

    try {
      const result = await started.done;
      if (!relay.sawDone && !stream.closed) {
        logger.warn({ traceId, sessionId: started.sessionId }, 'turn finished without a done event; closing the stream');
        relay.forward(doneEvent(started.sessionId, relay.nextSeq(), result.finalAnswer));
      }
    } catch (error) {
      logger.error({ err: error, traceId, sessionId: started.sessionId }, 'turn failed while streaming');
      if (!relay.sawDone) {
        relay.forward(doneEvent(started.sessionId, relay.nextSeq(), ERROR_CATALOGUE.INTERNAL.message, { error: { code: 'INTERNAL' } }));
      }
    } finally {
      stream.end();
    }
  };
}

/** The SSE id of an event: `<turn_id>:<seq>` (none for events of no turn). */
export function eventId(event: ResponseState): string | undefined {
  return event.metadata.turn_id ? `${event.metadata.turn_id}:${event.metadata.seq}` : undefined;
}

/** Writes events to the stream in order and ends it after the `done` event. */
function createRelay(stream: SseStream) {
  let lastSeq = 0;
  let sawDone = false;
  return {
    forward(event: ResponseState) {
      if (sawDone || stream.closed) return;
      const seq = typeof event.metadata?.seq === 'number' ? event.metadata.seq : lastSeq + 1;
      lastSeq = Math.max(lastSeq, seq);
      stream.sendSerialised(serialisedEvent(event), eventId(event));
      if (event.type === 'done') {
        sawDone = true;
        stream.end();
      }
    },
    nextSeq: () => lastSeq + 1,
    get sawDone() {
      return sawDone;
    },
  };
}

async function answerAsJson(response: Response, started: StartedTurn, isClosed: () => boolean): Promise<void> {
  const result: TurnResult = await started.done;
  if (isClosed() || response.headersSent) return;
  response.status(200).json({ session_id: result.sessionId, final_answer: result.finalAnswer, events: result.events });
}
