/**
 * Cache of model intent results (level 2 of the three-level recognition:
 * rules → cache → model). The same question asked again on the same registry
 * version, the same day and with the same short-term memory gets the same
 * intents, rewrite and drafted plan, so the model call is skipped.
 *
 * The key holds the day because drafted plans carry dates resolved from
 * "明天"/"tomorrow"; it holds a digest of the memory because a rewrite depends
 * on earlier turns, on parked tasks, on the summary of older turns and, when
 * it took one of their values, on the user's profile facts (a rewrite made
 * with one user's facts is never served to another user; one that used none
 * is kept under the profile-free key, `llm-recognizer.ts`). Entries are deep copies both ways, so
 * neither the caller nor a later turn can change what is stored.
 *
 * `IntentCache` is asynchronous so a shared (Redis) implementation can stand
 * in for the in-process one.
 */
import { createHash } from 'node:crypto';
import { createMemoryKeyValueStore, type KeyValue, type KeyValueStore } from '../store/index.js';
import type { IntentResult, MemoryTurn } from './types.js';
import { cacheForm, cacheFormOfNormal } from '../understanding/index.js';

/** Where recognised intents are kept between turns. */
export interface IntentCache {
  /** The entry of the first key that has one; one lookup however many keys are tried. */
  get(key: string | readonly string[]): Promise<IntentResult | undefined>;
  set(key: string, value: IntentResult): Promise<void>;
}

/** What a cache key is made of. */
export interface IntentCacheKeyInput {
  /** The query in its normal form, as the turn's reading holds it (`normalizedQuery`). */
  query: string;
  /** Registry snapshot version (content hash). */
  registryVersion: string;
  history: readonly Pick<MemoryTurn, 'query' | 'rewrittenQuery'>[];
  pendingAgents: readonly string[];
  /** Local date `YYYY-MM-DD` the turn runs on. */
  day: string;
  /** The layered summary and the profile facts the prompt shows ('' or absent when none). */
  summary?: string;
  profile?: string;
}

/**
 * Normal form of a text for a key: NFKC (full-width → half-width), CJK punctuation mapped, lower case, single spaces
 * and none around punctuation, trimmed (`understanding/cache-form.ts`; the response and answer caches key task messages with it).
 */
export const normalizeQueryForCache = cacheForm;

/** The cache key of one recognition. */
export function intentCacheKey(input: IntentCacheKeyInput): string {
  const memory = createHash('sha256')
    .update(JSON.stringify([input.history.map((turn) => turn.rewrittenQuery || turn.query), [...input.pendingAgents].sort(), input.summary ?? '', input.profile ?? '']))
    .digest('hex')
    .slice(0, 16);
  return `intent:${input.registryVersion}:${input.day}:${memory}:${cacheFormOfNormal(input.query)}`;
}

/** Options of the in-process cache. */
export interface InMemoryIntentCacheOptions {
  /** Time to live of an entry. Default 30 minutes. */
  ttlMs?: number;
  /** Entries kept; the least recently used go first. Default 1000. */
  maxEntries?: number;
  /** Clock in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/**
 * An intent cache over a key-value store (the one store interface behind every
 * cache; a shared implementation lets replicas share recognitions). Entries
 * live `ttlMs`; throws a `TypeError` naming a bad option. `onLookup` is told
 * the outcome of each read (metrics).
 */
export function createIntentCache(options: { store: KeyValueStore; ttlMs?: number; onLookup?: (hit: boolean) => void }): IntentCache {
  const ttlMs = options.ttlMs ?? 30 * 60_000;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new TypeError('intent cache: ttlMs must be a positive number');
  return {
    async get(key) {
      let value: IntentResult | undefined;
      for (const each of typeof key === 'string' ? [key] : key) {
        value = (await options.store.get(each)) as IntentResult | undefined;
        if (value !== undefined) break;
      }
      options.onLookup?.(value !== undefined);
      return value;
    },
    async set(key, value) {
      await options.store.set(key, value as unknown as KeyValue, ttlMs);
    },
  };
}

/** The in-process cache: an intent cache over an in-process LRU store. Throws a `TypeError` naming a bad option. */
export function createInMemoryIntentCache(options: InMemoryIntentCacheOptions = {}): IntentCache & { readonly size: number } {
  const maxEntries = options.maxEntries ?? 1000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('intent cache: maxEntries must be a positive integer');
  const store = createMemoryKeyValueStore({ maxEntries, now: options.now });
  const cache = createIntentCache({ store, ttlMs: options.ttlMs });
  return {
    get size() {
      return store.size;
    },
    get: cache.get,
    set: cache.set,
  };
}
