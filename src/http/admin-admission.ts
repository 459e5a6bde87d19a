/**
 * Who may read turn records and the console (contract v4 "Turn records and
 * the console", `SWITCHBOARD_ADMIN_KEYS`): with API keys configured, only a
 * request admitted with a key that is also an admin key, and only within the
 * tenant of that key (other keys get 403); with no API keys configured, only
 * a request from a loopback address (a forwarded-for header is not read: a
 * proxy on the same host makes every request loopback, so keys are the way to
 * open the console beyond the host).
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { UserError } from '../errors.js';
import { authenticatedKey, parseApiKeys } from './auth.js';

/** The keys of `SWITCHBOARD_API_KEYS` and `SWITCHBOARD_ADMIN_KEYS` (raw entries, `key` or `key=tenant`). */
export interface AdminKeyOptions {
  apiKeys: readonly string[];
  adminKeys: readonly string[];
}

/** The same digest `createApiKeyAuth` records for an admitted key (`authenticatedKey`). */
function keyId(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32);
}

/**
 * Checks the admin keys against the API keys at start: each must be one of
 * them, given to the same tenant. Throws naming what is wrong (never a key).
 */
export function parseAdminKeys(options: AdminKeyOptions): Set<string> {
  const api = new Map(parseApiKeys(options.apiKeys).map((entry) => [entry.key, entry.tenant]));
  const admitted = new Set<string>();
  parseAdminKeysEntries(options.adminKeys).forEach((entry, index) => {
    const tenant = api.get(entry.key);
    if (tenant === undefined) throw new Error(`SWITCHBOARD_ADMIN_KEYS: entry ${index + 1} is not one of SWITCHBOARD_API_KEYS`);
    if (entry.named && entry.tenant !== tenant) throw new Error(`SWITCHBOARD_ADMIN_KEYS: entry ${index + 1} names another tenant than its SWITCHBOARD_API_KEYS entry`);
    admitted.add(keyId(entry.key));
  });
  return admitted;
}

function parseAdminKeysEntries(entries: readonly string[]): { key: string; tenant: string; named: boolean }[] {
  return entries.flatMap((raw) => {
    const entry = raw.trim();
    if (entry === '') return [];
    const [parsed] = parseApiKeys([entry]);
    if (!parsed) return [];
    return [{ ...parsed, named: parsed.key !== entry }];
  });
}

/** Whether the request came from this host. */
export function isLoopback(request: Request): boolean {
  const address = request.socket.remoteAddress ?? '';
  return address === '::1' || /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

/**
 * Middleware for the admin routes. It runs after the API key check (`/v1`),
 * which already refused a missing or unknown key and recorded its tenant.
 */
export function createAdminAdmission(options: AdminKeyOptions): RequestHandler {
  const keysOn = options.apiKeys.some((key) => key.trim() !== '');
  const admins = keysOn ? parseAdminKeys(options) : new Set<string>();
  return (request, response, next) => {
    if (!keysOn) {
      if (!isLoopback(request)) throw new UserError('FORBIDDEN', 'turn records and the console are served to loopback addresses only while no API keys are configured');
      next();
      return;
    }
    const key = authenticatedKey(response);
    if (key === undefined || !admins.has(key)) throw new UserError('FORBIDDEN', 'this API key may not read turn records: it is not in SWITCHBOARD_ADMIN_KEYS');
    next();
  };
}
