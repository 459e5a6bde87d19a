/**
 * Bearer API keys for `/v1/*` (CONTRACT §5, `SWITCHBOARD_API_KEYS`).
 * A missing or malformed `authorization` header is 401 (with
 * `www-authenticate: Bearer`); a well-formed header with an unknown key is 403.
 * Keys are compared in constant time: both sides are hashed to a fixed length
 * and every configured key is compared, so timing reveals neither the length
 * nor which key came close.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UserError } from '../errors.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** True when `candidate` equals one of `keys`; runs in time independent of which one. */
export function matchesApiKey(candidate: string, keyDigests: readonly Buffer[]): boolean {
  const candidateDigest = digest(candidate);
  let matched = false;
  for (const keyDigest of keyDigests) {
    if (timingSafeEqual(candidateDigest, keyDigest)) matched = true;
  }
  return matched;
}

/**
 * Middleware that requires `authorization: Bearer <key>`. With no keys
 * configured it lets every request through (open mode).
 */
export function createApiKeyAuth(apiKeys: readonly string[] = []): RequestHandler {
  const keyDigests = apiKeys.map((key) => key.trim()).filter((key) => key.length > 0).map(digest);
  if (keyDigests.length === 0) return (_request, _response, next) => next();
  return (request, _response, next) => {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || header.trim() === '') {
      throw new UserError('UNAUTHORIZED', 'authorization header is missing; send "authorization: Bearer <key>"');
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
    if (!match) throw new UserError('UNAUTHORIZED', 'authorization header must be "Bearer <key>"');
    if (!matchesApiKey(match[1]!, keyDigests)) throw new UserError('FORBIDDEN', 'the API key is not valid');
    next();
  };
}
