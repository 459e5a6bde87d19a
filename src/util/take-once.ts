/**
 * Values read ahead for a later reader: each is taken at most once, and only
 * within `maxAgeMs` of being put. Entries never taken go when the next one is
 * put, so the map holds no more than what was put in the last `maxAgeMs`.
 */
export interface TakeOnce<V> {
  put(key: string, value: V): void;
  /** The value put under `key` (and forgets it), or undefined when none or too old. */
  take(key: string): V | undefined;
  forget(key: string): void;
  /** Forgets every key starting with `prefix`. */
  forgetPrefix(prefix: string): void;
}

export function createTakeOnce<V>(maxAgeMs: number): TakeOnce<V> {
  const byKey = new Map<string, { value: V; at: number }>();
  return {
    put(key, value) {
      const now = Date.now();
      for (const [other, entry] of byKey) if (now - entry.at > maxAgeMs) byKey.delete(other);
      byKey.set(key, { value, at: now });
    },
    take(key) {
      const entry = byKey.get(key);
      byKey.delete(key);
      return entry && Date.now() - entry.at <= maxAgeMs ? entry.value : undefined;
    },
    forget(key) {
      byKey.delete(key);
    },
    forgetPrefix(prefix) {
      for (const key of byKey.keys()) if (key.startsWith(prefix)) byKey.delete(key);
    },
  };
}
