/**
 * A key-value store with a time to live per entry: the one interface behind
 * every cache of the supervisor (agent replies, answers of hot questions).
 * The in-process implementation is an LRU; a shared one (Redis, Postgres)
 * implements the same interface so replicas see each other's entries.
 *
 * Values are JSON-shaped data. Reads return copies, so neither the caller nor
 * a later reader can change what is stored.
 */
import { LRUCache } from 'lru-cache';
import type { KeyValue, KeyValueStore } from './types.js';

/** Options of the in-process store. */
export interface MemoryKeyValueStoreOptions {
  /** Entries kept; the least recently used go first. Default 5000. */
  maxEntries?: number;
  /** Clock in milliseconds (tests). Default `performance.now`-based clock of lru-cache. */
  now?: () => number;
}

/** The in-process `KeyValueStore` (lru-cache with a TTL per entry). Throws a `TypeError` naming a bad option. */
export function createMemoryKeyValueStore(options: MemoryKeyValueStoreOptions = {}): KeyValueStore & { readonly size: number } {
  const maxEntries = options.maxEntries ?? 5000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('key-value store: maxEntries must be a positive integer');
  const cache = new LRUCache<string, { value: KeyValue }>({
    max: maxEntries,
    ttlAutopurge: false,
    ttlResolution: 0,
    allowStale: false,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  return {
    get size() {
      return cache.size;
    },
    async get(key) {
      const entry = cache.get(key);
      return entry === undefined ? undefined : structuredClone(entry.value);
    },
    async set(key, value, ttlMs) {
      if (!Number.isFinite(ttlMs) || ttlMs <= 0) return;
      cache.set(key, { value: structuredClone(value) }, { ttl: Math.round(ttlMs) });
    },
    async setIfAbsent(key, value, ttlMs) {
      if (cache.get(key) !== undefined || !Number.isFinite(ttlMs) || ttlMs <= 0) return false;
      cache.set(key, { value: structuredClone(value) }, { ttl: Math.round(ttlMs) });
      return true;
    },
    async delete(key) {
      cache.delete(key);
    },
  };
}
