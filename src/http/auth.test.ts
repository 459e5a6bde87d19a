import { describe, expect, it } from 'vitest';
import { parseApiKeys } from './auth.js';

describe('parseApiKeys', () => {
  it('reads plain keys (default tenant) and key=tenant entries, trimming spaces and skipping empties', () => {
    expect(parseApiKeys([' k1 ', 'k2=shop', '', 'k3 = clinic'])).toEqual([
      { key: 'k1', tenant: '' },
      { key: 'k2', tenant: 'shop' },
      { key: 'k3', tenant: 'clinic' },
    ]);
  });

  it('splits at the last "=", so keys may hold "=" and an entry ending in "=" is a plain key', () => {
    expect(parseApiKeys(['a=b=shop', 'c2VjcmV0==', '=x'])).toEqual([
      { key: 'a=b', tenant: 'shop' },
      { key: 'c2VjcmV0==', tenant: '' },
      { key: '=x', tenant: '' },
    ]);
  });

  it('refuses a bad tenant name and one key given to two tenants; a repeat for the same tenant is fine', () => {
    expect(() => parseApiKeys(['k=shop/web'])).toThrow(/tenant name/);
    expect(() => parseApiKeys(['k=shop', 'k=clinic'])).toThrow(/two tenants/);
    expect(() => parseApiKeys(['k=shop', 'k'])).toThrow(/two tenants/);
    expect(parseApiKeys(['k=shop', 'k=shop'])).toEqual([{ key: 'k', tenant: 'shop' }]);
  });
});
