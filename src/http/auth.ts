/**
 * Bearer API keys for `/v1/*` (docs/api.md#environment, `SWITCHBOARD_API_KEYS`).
 * A missing or malformed `authorization` header is 401 (with
 * `www-authenticate: Bearer`); a well-formed header with an unknown key is 403.
 * Keys are compared in constant time: both sides are hashed to a fixed length
 * and every configured key is compared, so timing reveals neither the length
 * nor which key came close.
 *
 * A key names its tenant (`key=tenant`; a plain `key` is the default tenant):
 * the routes read it with `callerTenant` / `callerOwner` and keep every
 * session and profile lookup inside it (see `src/store/owner-key.ts`). The
 * `user_id` a request carries is asserted by the holder of the key (a trusted
 * front end), not proven by the end user.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { UserError } from '../errors.js';
import { ID_RULES, isValidId } from '../id-patterns.js';
import { DEFAULT_TENANT, ownerKey } from '../store/index.js';

/** One configured key and the tenant its callers belong to. */
export interface ApiKeyEntry {
  key: string;
  tenant: string;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Reads `SWITCHBOARD_API_KEYS` entries: `key` (the default tenant) or
 * `key=tenant`. The split is at the last `=`, so a key may itself hold `=`
 * (an entry ending in `=`, such as base64 padding, is a plain key). Throws on
 * a bad tenant name or on one key given to two tenants.
 */
export function parseApiKeys(entries: readonly string[]): ApiKeyEntry[] {
  const parsed = new Map<string, string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const at = entry.lastIndexOf('=');
    const named = at > 0 && at < entry.length - 1;
    const key = named ? entry.slice(0, at).trim() : entry;
    const tenant = named ? entry.slice(at + 1).trim() : DEFAULT_TENANT;
    if (named && !isValidId('tenant', tenant)) {
      throw new Error(`SWITCHBOARD_API_KEYS: tenant name ${JSON.stringify(tenant)} may only hold ${ID_RULES.tenant.allowed}`);
    }
    if (key === '') throw new Error('SWITCHBOARD_API_KEYS: an entry has an empty key');
    const earlier = parsed.get(key);
    if (earlier !== undefined && earlier !== tenant) throw new Error('SWITCHBOARD_API_KEYS: one key is given to two tenants');
    parsed.set(key, tenant);
  }
  return [...parsed].map(([key, tenant]) => ({ key, tenant }));
}

/** The index of the entry `candidate` equals, or -1; runs in time independent of which one. */
export function matchApiKey(candidate: string, keyDigests: readonly Buffer[]): number {
  const candidateDigest = digest(candidate);
  let matched = -1;
  for (let index = 0; index < keyDigests.length; index++) {
    if (timingSafeEqual(candidateDigest, keyDigests[index]!)) matched = index;
  }
  return matched;
}

const TENANT_LOCAL = 'switchboardTenant';
const KEY_LOCAL = 'switchboardKey';

/**
 * Who the request is, as far as a check proved it: a digest of the API key it
 * was admitted with, or undefined in open mode (no keys configured), where an
 * Authorization header is never read and so names nobody.
 */
export function authenticatedKey(response: Response): string | undefined {
  const key: unknown = response.locals[KEY_LOCAL];
  return typeof key === 'string' ? key : undefined;
}

/** The tenant of the request's API key (the default tenant in open mode or for a plain key). */
export function callerTenant(response: Response): string {
  const tenant: unknown = response.locals[TENANT_LOCAL];
  return typeof tenant === 'string' ? tenant : DEFAULT_TENANT;
}

/** The owner key (storage namespace) of `userId` as asserted by this request's API key. */
export function callerOwner(response: Response, userId: string): string {
  return ownerKey(callerTenant(response), userId);
}

/**
 * Middleware that requires `authorization: Bearer <key>` and records the
 * key's tenant for the routes (`callerTenant`). With no keys configured it
 * lets every request through (open mode, default tenant).
 */
export function createApiKeyAuth(apiKeys: readonly string[] = []): RequestHandler {
  const entries = parseApiKeys(apiKeys);
  const keyDigests = entries.map((entry) => digest(entry.key));
  if (keyDigests.length === 0) return (_request, _response, next) => next();
  return (request, response, next) => {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') {
      throw new UserError('UNAUTHORIZED', 'authorization header is missing; send "authorization: Bearer <key>"');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
    if (!match) throw new UserError('UNAUTHORIZED', 'authorization header must be "Bearer <key>"');
    const index = matchApiKey(match[1]!, keyDigests);
    if (index < 0) throw new UserError('FORBIDDEN', 'the API key is not valid');
    response.locals[TENANT_LOCAL] = entries[index]!.tenant;
    response.locals[KEY_LOCAL] = keyDigests[index]!.toString('hex').slice(0, 32);
    next();
  };
}
