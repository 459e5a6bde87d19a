/**
 * `GET /v1/sessions/:session_id/messages?user_id=...`: a session's transcript.
 *
 * Only the owner may read it. Session ids are namespaced per user; a session
 * id that only other users have answers 403 rather than pretending it does not
 * exist: session ids are generated, so revealing existence leaks nothing
 * useful, and a clear 403 makes a client bug (wrong user id) obvious. `user_id` is asserted by the caller,
 * which is trusted through its API key; it is not an end-user login. All of
 * this happens inside the key's tenant: another tenant's session with the
 * same id does not exist here (404, never 403, so nothing about it leaks).
 */
import type { RequestHandler } from 'express';
import { UserError } from '../errors.js';
import type { TranscriptReader } from '../store/index.js';
import { callerOwner } from './auth.js';
import { requireIdParameter } from './chat-request.js';

/** Builds the handler for the session transcript route. */
export function createSessionMessagesHandler(options: { messages: TranscriptReader }): RequestHandler {
  return async (request, response) => {
    const sessionId = requireIdParameter('session_id', request.params.session_id);
    const userId = requireIdParameter('user_id', request.query.user_id);
    const owner = callerOwner(response, userId);
    const access = await options.messages.sessionAccess(owner, sessionId);
    if (access === 'none') throw new UserError('SESSION_NOT_FOUND', `session ${sessionId} does not exist`);
    if (access === 'other') throw new UserError('FORBIDDEN', 'this session belongs to another user');
    const messages = await options.messages.listMessages(owner, sessionId);
    response.json({ session_id: sessionId, messages });
  };
}
