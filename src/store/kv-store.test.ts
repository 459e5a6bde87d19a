import { expect, it } from 'vitest';
import { createMemoryKeyValueStore } from './kv-store.js';
import { runKeyValueStoreContract } from '../../test/store/kv-store-contract.js';

runKeyValueStoreContract('in-process LRU', () => {
  let clock = 1_000;
  const store = createMemoryKeyValueStore({ now: () => clock });
  return { store, advance: async (ms) => void (clock += ms) };
});

it('drops the least recently used entry beyond maxEntries', async () => {
  const store = createMemoryKeyValueStore({ maxEntries: 2 });
  await store.set('a', 1, 60_000);
  await store.set('b', 2, 60_000);
  await store.get('a');
  await store.set('c', 3, 60_000);
  expect(await store.get('b')).toBeUndefined();
  expect(await store.get('a')).toBe(1);
  expect(store.size).toBe(2);
});

it('rejects a bad maxEntries', () => {
  expect(() => createMemoryKeyValueStore({ maxEntries: 0 })).toThrow(/maxEntries/);
});
