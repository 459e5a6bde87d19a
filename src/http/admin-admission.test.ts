import { describe, expect, it } from 'vitest';
import type { Request } from 'express';
import { isLoopback, parseAdminKeys } from './admin-admission.js';

describe('admin keys', () => {
  it('accepts keys of SWITCHBOARD_API_KEYS, with or without their tenant', () => {
    expect(parseAdminKeys({ apiKeys: ['a=alpha', 'b', 'c=gamma'], adminKeys: ['a', 'b', 'c=gamma', ' '] }).size).toBe(3);
  });

  it('refuses a key that is not an API key, or one named with another tenant, without showing the key', () => {
    expect(() => parseAdminKeys({ apiKeys: ['a=alpha'], adminKeys: ['secret-x'] })).toThrow(/entry 1 is not one of SWITCHBOARD_API_KEYS/);
    expect(() => parseAdminKeys({ apiKeys: ['a=alpha'], adminKeys: ['a=beta'] })).toThrow(/entry 1 names another tenant/);
    expect(() => parseAdminKeys({ apiKeys: ['a=alpha'], adminKeys: ['secret-x'] })).not.toThrow(/secret-x/);
  });

  it('reads only the socket address as loopback, never a forwarded header', () => {
    const from = (address: string, headers: Record<string, string> = {}) => ({ socket: { remoteAddress: address }, headers }) as unknown as Request;
    expect(isLoopback(from('127.0.0.1'))).toBe(true);
    expect(isLoopback(from('::1'))).toBe(true);
    expect(isLoopback(from('::ffff:127.0.0.1'))).toBe(true);
    expect(isLoopback(from('10.0.0.5', { 'x-forwarded-for': '127.0.0.1' }))).toBe(false);
    expect(isLoopback(from('::ffff:192.168.1.2'))).toBe(false);
  });
});
