/**
 * Tenants (docs/api.md#environment, `SWITCHBOARD_API_KEYS` entries `key=tenant`):
 * everything a user owns — sessions, transcripts, turns, turn events, task
 * records, checkpoints, profiles, idempotency keys — is stored under an owner
 * key, the user id within its tenant. Two tenants' users with the same
 * `user_id` are two owners, so one tenant can never reach the other's data
 * whatever ids it claims.
 *
 * The default tenant (open mode and plain keys) keeps the bare user id as its
 * owner key, so data written before tenants existed stays where it was. A
 * named tenant's owner key is `<tenant>/<user_id>`: `/` is never part of a
 * user id (the HTTP layer rejects it and `ownerKey` refuses it), so no user of
 * one tenant can spell an owner key of another. Owner keys stay inside the
 * server: clients and sub-agents only ever see the plain `user_id`.
 */
import { isValidId } from '../id-patterns.js';

/** The tenant of open mode and of plain (unnamed) API keys. */
export const DEFAULT_TENANT = '';

const SEPARATOR = '/';

/** The owner key of `userId` within `tenant`. Throws on a user id holding the separator (a wiring bug). */
export function ownerKey(tenant: string, userId: string): string {
  if (userId.includes(SEPARATOR)) throw new Error('a user id never contains "/"; it was not validated');
  if (tenant === DEFAULT_TENANT) return userId;
  if (!isValidId('tenant', tenant)) throw new Error(`invalid tenant name ${JSON.stringify(tenant)}`);
  return `${tenant}${SEPARATOR}${userId}`;
}

/** The tenant an owner key belongs to. */
export function tenantOfOwner(owner: string): string {
  const at = owner.indexOf(SEPARATOR);
  return at < 0 ? DEFAULT_TENANT : owner.slice(0, at);
}

/**
 * The checkpoint thread of an owner's session. `<owner>:<session>` as before,
 * except for an owner holding `:` (user ids may), whose threads are
 * `~<length>:<owner>:<session>`: otherwise user `a`'s session `b:s1` and user
 * `a:b`'s session `s1` would share one thread, and forgetting `a` would take
 * `a:b`'s memory too. No owner starts with `~`, so the two forms never meet.
 */
export function checkpointThread(owner: string, sessionId: string): string {
  return `${checkpointThreadPrefix(owner)}${sessionId}`;
}

/** What every checkpoint thread of `owner` starts with, and no thread of another owner does. */
export function checkpointThreadPrefix(owner: string): string {
  return owner.includes(':') ? `~${owner.length}:${owner}:` : `${owner}:`;
}

/**
 * The owner of the A2A server's task rows (`A2aTaskRow.owner`): the caller's
 * tenant, so every user of a tenant reaches the tenant's tasks by id and no
 * other tenant does. The user a task was run for rides in the task's JSON
 * (`metadata.user_id`), which is how forgetting a user finds its tasks.
 */
export function a2aTaskOwner(tenant: string): string {
  return `tenant:${tenant}`;
}

/** The A2A task owner and the plain user id of an owner key (what `forgetUser` deletes the A2A tasks by). */
export function a2aTaskUserOf(owner: string): { taskOwner: string; userId: string } {
  const tenant = tenantOfOwner(owner);
  return { taskOwner: a2aTaskOwner(tenant), userId: tenant === DEFAULT_TENANT ? owner : owner.slice(tenant.length + SEPARATOR.length) };
}
