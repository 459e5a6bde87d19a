/**
 * `GET` / `DELETE /v1/users/:user_id/profile?user_id=...`: the user's
 * long-term profile facts (docs/api.md#environment memory layers).
 *
 * As for sessions, the caller is the `user_id` query parameter, trusted
 * through its API key; only the owner (path user = caller) may read or delete,
 * anyone else gets 403. Profiles live in the API key's tenant: the same
 * `user_id` in another tenant is another person with another profile.
 * `DELETE ...&all=true` is the right to be forgotten: the profile and every
 * session of the user (in this tenant) go, with the tasks Switchboard's own
 * A2A server ran for the user.
 */
import type { RequestHandler } from 'express';
import { UserError } from '../errors.js';
import type { ProfileStore } from '../store/index.js';
import { callerOwner } from './auth.js';
import { requireIdParameter } from './chat-request.js';

export interface ProfileRouteOptions {
  profiles: ProfileStore;
  /** Deletes the profile and every session of the owner (a user within its tenant). */
  forgetUser: (userId: string) => Promise<{ sessions: number }>;
}

/** The path user and its owner key in the caller's tenant, once the caller is that user. */
function owner(request: Parameters<RequestHandler>[0], response: Parameters<RequestHandler>[1]): { userId: string; owner: string } {
  const pathUser = requireIdParameter('user_id', request.params.user_id);
  const caller = requireIdParameter('user_id', request.query.user_id);
  if (pathUser !== caller) throw new UserError('FORBIDDEN', 'a profile can only be read or deleted by its own user');
  return { userId: pathUser, owner: callerOwner(response, pathUser) };
}

/** `GET`: `{ user_id, facts: [{ key, value, hits, source, first_seen, updated_at }] }`. */
export function createProfileReadHandler(options: ProfileRouteOptions): RequestHandler {
  return async (request, response) => {
    const { userId, owner: key } = owner(request, response);
    response.json({ user_id: userId, facts: await options.profiles.get(key) });
  };
}

/** `DELETE`: `{ user_id, deleted: { profile: true, sessions: N } }` (`sessions` only with `all=true`). */
export function createProfileDeleteHandler(options: ProfileRouteOptions): RequestHandler {
  return async (request, response) => {
    // The request's shape is checked before who may make it.
    const all = request.query.all;
    if (all !== undefined && all !== 'true' && all !== 'false') throw new UserError('BAD_REQUEST', 'all must be true or false', { field: 'all' });
    const { userId, owner: key } = owner(request, response);
    if (all === 'true') {
      const { sessions } = await options.forgetUser(key);
      response.json({ user_id: userId, deleted: { profile: true, sessions } });
      return;
    }
    await options.profiles.delete(key);
    response.json({ user_id: userId, deleted: { profile: true } });
  };
}
