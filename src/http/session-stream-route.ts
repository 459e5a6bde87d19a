/**
 * `GET /v1/sessions/:session_id/stream` (resume with `Last-Event-ID`) and
 * `POST /v1/sessions/:session_id/cancel`, for the session's owner, on any
 * replica: both go through the stored events and the signal bus, never
 * through the process that runs the turn. Sessions are looked up within the
 * API key's tenant only.
 */
import type { RequestHandler } from 'express';
import { UserError } from '../errors.js';
import { parseEventId, type TurnFeed } from '../turn/index.js';
import type { TranscriptReader } from '../store/index.js';
import { callerOwner } from './auth.js';
import { requireIdParameter } from './chat-request.js';
import { openSseStream } from './sse.js';

export interface SessionStreamOptions {
  messages: TranscriptReader;
  feed: TurnFeed;
  heartbeatMs: number;
}

/** The caller's owner key once it is known to own the session (404 when the session is not in its tenant, 403 when another user's). */
async function requireOwner(messages: TranscriptReader, owner: string, sessionId: string): Promise<string> {
  const access = await messages.sessionAccess(owner, sessionId);
  if (access === 'none') throw new UserError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
  if (access === 'other') throw new UserError('FORBIDDEN', 'this session belongs to another user');
  return owner;
}

/**
 * The session's turns that started after `turnId`, oldest first (from its
 * transcript: each turn's rows carry its id).
 */
async function turnsAfter(messages: TranscriptReader, owner: string, sessionId: string, turnId: string): Promise<string[]> {
  const order = new Set<string>();
  for (const message of await messages.listMessages(owner, sessionId)) if (message.turn_id) order.add(message.turn_id);
  const turns = [...order];
  const index = turns.indexOf(turnId);
  return index < 0 ? [] : turns.slice(index + 1);
}

/**
 * Replays the events after `Last-Event-ID` — the rest of that turn, then every
 * later turn of the session — and follows the running one live until `done`;
 * 204 when nothing follows that id (it is at or past the last turn's `done`).
 */
export function createSessionStreamHandler(options: SessionStreamOptions): RequestHandler {
  return async (request, response) => {
    const sessionId = requireIdParameter('session_id', request.params.session_id);
    const userId = requireIdParameter('user_id', request.query.user_id);
    const header = request.headers['last-event-id'];
    const lastEventId = Array.isArray(header) ? header[0] : header;
    // The request's shape is checked before the session is looked up: a malformed id is a 400 wherever it points.
    if (lastEventId && !parseEventId(lastEventId)) throw new UserError('BAD_REQUEST', 'Last-Event-ID must be <turn_id>:<seq> as sent in an event id', { field: 'last-event-id' });
    const owner = await requireOwner(options.messages, callerOwner(response, userId), sessionId);
    const point = await options.feed.resumePoint(owner, sessionId, lastEventId || undefined);
    if (!point.ok) {
      if (point.reason === 'bad_id') throw new UserError('BAD_REQUEST', 'Last-Event-ID must be <turn_id>:<seq> as sent in an event id', { field: 'last-event-id' });
      throw new UserError('NOT_FOUND', lastEventId ? `no event ${lastEventId} in session ${sessionId}` : `session ${sessionId} has no turn yet`);
    }
    // Without the header the latest turn is replayed; with it, what came after the id, later turns included.
    const later = lastEventId ? await turnsAfter(options.messages, owner, sessionId, point.turnId) : [];
    const namedExhausted = await options.feed.exhausted(point.turnId, point.afterSeq);
    if (namedExhausted && later.length === 0) {
      // Nothing will follow that id: 204 tells a browser EventSource to stop reconnecting.
      response.status(204).end();
      return;
    }
    const controller = new AbortController();
    response.once('close', () => controller.abort());
    const stream = openSseStream(response, { heartbeatMs: options.heartbeatMs });
    try {
      const parts = [...(namedExhausted ? [] : [{ turnId: point.turnId, afterSeq: point.afterSeq }]), ...later.map((turnId) => ({ turnId, afterSeq: 0 }))];
      for (const part of parts) {
        if (controller.signal.aborted) break;
        await options.feed.follow(part.turnId, part.afterSeq, (event) => stream.sendSerialised(event.data, `${part.turnId}:${event.seq}`), controller.signal);
      }
    } finally {
      stream.end();
    }
  };
}

/** Cancels the session's running turn wherever it runs: 202, or 404 when none runs. */
export function createSessionCancelHandler(options: Pick<SessionStreamOptions, 'messages' | 'feed'>): RequestHandler {
  return async (request, response) => {
    const sessionId = requireIdParameter('session_id', request.params.session_id);
    const userId = requireIdParameter('user_id', request.query.user_id);
    const owner = await requireOwner(options.messages, callerOwner(response, userId), sessionId);
    const cancelled = await options.feed.cancel(owner, sessionId);
    if (!cancelled) throw new UserError('NOT_FOUND', `no turn is running on session ${sessionId}`);
    response.status(202).json({ status: 'cancelling', turn_id: cancelled.turnId });
  };
}
