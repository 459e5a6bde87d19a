/**
 * The shared contract every `KeyValueStore` implementation must pass. Call it
 * from a test file with a factory for a fresh, empty store and a way to move
 * its clock forward (or real waiting for stores on a real clock).
 */
import { describe, expect, it } from 'vitest';
import type { KeyValueStore } from '../../src/store/index.js';

export interface KeyValueStoreFixture {
  store: KeyValueStore;
  /** Moves the store's clock forward by `ms`. */
  advance(ms: number): Promise<void>;
  close?(): Promise<void>;
}

export function runKeyValueStoreContract(name: string, create: () => Promise<KeyValueStoreFixture> | KeyValueStoreFixture): void {
  describe(`KeyValueStore contract: ${name}`, () => {
    it('returns what was set until its time to live runs out', async () => {
      const fixture = await create();
      await fixture.store.set('a', { city: '北京', list: [1, 2] }, 1000);
      expect(await fixture.store.get('a')).toEqual({ city: '北京', list: [1, 2] });
      await fixture.advance(1500);
      expect(await fixture.store.get('a')).toBeUndefined();
      await fixture.close?.();
    });

    it('returns copies', async () => {
      const fixture = await create();
      const value = { items: ['x'] };
      await fixture.store.set('b', value, 60_000);
      value.items.push('changed before read');
      const first = (await fixture.store.get('b')) as { items: string[] };
      first.items.push('changed after read');
      expect(await fixture.store.get('b')).toEqual({ items: ['x'] });
      await fixture.close?.();
    });

    it('deletes, and ignores a non-positive time to live', async () => {
      const fixture = await create();
      await fixture.store.set('c', 1, 60_000);
      await fixture.store.delete('c');
      expect(await fixture.store.get('c')).toBeUndefined();
      await fixture.store.set('d', 1, 0);
      expect(await fixture.store.get('d')).toBeUndefined();
      expect(await fixture.store.get('never-set')).toBeUndefined();
      await fixture.close?.();
    });
  });
}
