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

/** Replays a turn's events after `Last-Event-ID`, then follows it live until `done`; 204 when nothing can follow that id. */
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
    if (await options.feed.exhausted(point.turnId, point.afterSeq)) {
      // Nothing will follow that id: 204 tells a browser EventSource to stop reconnecting.
      response.status(204).end();
      return;
    }
    const controller = new AbortController();
    response.once('close', () => controller.abort());
    const stream = openSseStream(response, { heartbeatMs: options.heartbeatMs });
    try {
      await options.feed.follow(point.turnId, point.afterSeq, (event) => stream.sendSerialised(event.data, `${point.turnId}:${event.seq}`), controller.signal);
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
