/**
 * Idempotent turns (docs/api.md#conversation-rules): a chat request with an `idempotency-key`
 * that repeats one seen within 24 h (same user) never starts a second turn;
 * the caller streams the first turn's stored events instead. The key is
 * claimed with set-if-absent in the shared key-value store, so the rule holds
 * across replicas and under a burst of identical retries.
 */
import type { KeyValueStore } from '../store/index.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a claim found. */
export type IdempotencyClaim =
  | { kind: 'new' }
  | { kind: 'existing'; turnId: string; sessionId: string }
  /** Another request with this key is still starting its turn. */
  | { kind: 'pending' };

export interface TurnIdempotency {
  claim(userId: string, key: string): Promise<IdempotencyClaim>;
  /** Remembers which turn the claimed key started. */
  record(userId: string, key: string, turn: { turnId: string; sessionId: string }): Promise<void>;
  /** Frees a claimed key whose turn never started (refused), so a retry may start it. */
  release(userId: string, key: string): Promise<void>;
}

export function createTurnIdempotency(options: { kv: KeyValueStore; ttlMs?: number; waitMs?: number }): TurnIdempotency {
  const ttlMs = options.ttlMs ?? DAY_MS;
  const waitMs = options.waitMs ?? 3000;
  const keyOf = (userId: string, key: string) => `idem:${userId.length}:${userId}:${key}`;
  return {
    async claim(userId, key) {
      const storeKey = keyOf(userId, key);
      if (await options.kv.setIfAbsent(storeKey, { state: 'starting' }, ttlMs)) return { kind: 'new' };
      for (const deadline = Date.now() + waitMs; ; ) {
        const value = (await options.kv.get(storeKey)) as { turn_id?: unknown; session_id?: unknown } | undefined;
        if (typeof value?.turn_id === 'string' && typeof value.session_id === 'string') return { kind: 'existing', turnId: value.turn_id, sessionId: value.session_id };
        if (value === undefined) {
          // Released meanwhile (the first attempt was refused): this one may start it.
          if (await options.kv.setIfAbsent(storeKey, { state: 'starting' }, ttlMs)) return { kind: 'new' };
          continue;
        }
        if (Date.now() >= deadline) return { kind: 'pending' };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async record(userId, key, turn) {
      await options.kv.set(keyOf(userId, key), { turn_id: turn.turnId, session_id: turn.sessionId }, ttlMs);
    },
    async release(userId, key) {
      await options.kv.delete(keyOf(userId, key));
    },
  };
}
