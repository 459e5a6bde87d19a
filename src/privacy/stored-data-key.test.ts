import { describe, expect, it } from 'vitest';
import { createMemoryKeyValueStore } from '../store/kv-store.js';
import { createDataSealer } from './data-sealer.js';
import { loadOrCreateDataKey, STORED_DATA_KEY } from './stored-data-key.js';

describe('loadOrCreateDataKey', () => {
  it('draws the key once and returns the same one on every later start', async () => {
    const kv = createMemoryKeyValueStore();
    const first = await loadOrCreateDataKey(kv);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await kv.get(STORED_DATA_KEY)).toBe(first);
    expect(await loadOrCreateDataKey(kv)).toBe(first);
    const sealed = createDataSealer(first).seal({ phone: '13912345678' });
    expect(createDataSealer(await loadOrCreateDataKey(kv)).open(sealed)).toEqual({ phone: '13912345678' });
  });

  it('replicas starting together agree on one key', async () => {
    const kv = createMemoryKeyValueStore();
    const keys = await Promise.all([loadOrCreateDataKey(kv), loadOrCreateDataKey(kv), loadOrCreateDataKey(kv)]);
    expect(new Set(keys).size).toBe(1);
    expect(await kv.get(STORED_DATA_KEY)).toBe(keys[0]);
  });

  it('another store holds another key', async () => {
    expect(await loadOrCreateDataKey(createMemoryKeyValueStore())).not.toBe(await loadOrCreateDataKey(createMemoryKeyValueStore()));
  });
});
