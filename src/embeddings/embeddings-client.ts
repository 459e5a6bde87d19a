/**
 * The client of an optional OpenAI-compatible `/v1/embeddings` endpoint
 * (docs/api.md#environment: `EMBEDDINGS_BASE_URL`, `EMBEDDINGS_MODEL`,
 * `EMBEDDINGS_API_KEY`; a hosted one, or a local Ollama, TEI or vLLM).
 *
 * - Calls go through the `openai` SDK's embeddings call, at most `batchSize`
 *   texts per request, no SDK retries (a turn does not wait for them).
 * - Every vector is cached by a hash of the model and the text: first in a
 *   per-replica LRU, then, for texts marked `shared` (capability cards, never
 *   user queries), in the storage backend's key-value store, so a reload or
 *   another replica embeds only what changed.
 * - A failing or slow endpoint never fails a turn: each call has a timeout,
 *   a circuit breaker (the model gateway's, opossum) stops calling a dead
 *   endpoint, and `embed` then resolves `undefined`: the caller keeps its
 *   lexical result. Calls, latency, cache hits and fallbacks are counted.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { LRUCache } from 'lru-cache';
import OpenAI from 'openai';
import { CallerAbortedError, createEndpointBreaker, type CircuitBreakerOptions } from '../llm/index.js';
import type { Logger } from '../logger.js';
import type { KeyValueStore } from '../store/index.js';

/** What the client counts (the server wires these to Prometheus). */
export interface EmbeddingsStats {
  /** Requests sent to the endpoint, by outcome. */
  calls: { ok: number; error: number };
  /** Texts found in the in-memory LRU and in the shared store. */
  cacheHits: { memory: number; store: number };
  /** Texts that had to be embedded. */
  cacheMisses: number;
  /** `embed` calls answered `undefined` (endpoint failed, timed out or circuit open). */
  fallbacks: number;
  /** Latency of the endpoint requests, ms, most recent last (bounded). */
  latenciesMs: number[];
}

/** Hooks for metrics; every field optional. */
export interface EmbeddingsObserver {
  onCall?(outcome: 'ok' | 'error', latencyMs: number): void;
  onCacheLookup?(where: 'memory' | 'store' | 'miss'): void;
  onFallback?(reason: string): void;
}

/** Settings of the client. */
export interface EmbeddingsClientOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Time allowed per request. Default 2000 ms. */
  timeoutMs?: number;
  /** Vectors kept in the per-replica LRU. Default 20 000. */
  memoryEntries?: number;
  /** Shared cache of card vectors (the storage backend's key-value store). Default: none. */
  store?: KeyValueStore;
  /** How long a stored vector lives. Default 30 days. */
  storeTtlMs?: number;
  breaker?: CircuitBreakerOptions;
  logger: Logger;
  observer?: EmbeddingsObserver;
}

/** One text to embed; `shared` texts (cards) may go to the shared store, others stay in this replica's memory. */
export interface EmbedText {
  text: string;
  shared?: boolean;
}

/** The client. */
export interface EmbeddingsClient {
  readonly model: string;
  /** Unit vectors in the order of `texts`, or `undefined` when the endpoint could not give them all. */
  embed(texts: readonly EmbedText[], signal?: AbortSignal): Promise<Float32Array[] | undefined>;
  /** Replaces the shared store (the server opens its storage after building the strategies). */
  useStore(store: KeyValueStore | undefined): void;
  readonly stats: EmbeddingsStats;
}

/** Creates the client. Throws a `TypeError` naming a bad setting. */
export function createEmbeddingsClient(options: EmbeddingsClientOptions): EmbeddingsClient {
  const batchSize = options.batchSize ?? 64;
  const timeoutMs = options.timeoutMs ?? 2000;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new TypeError('embeddings: batchSize must be a positive integer');
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('embeddings: timeoutMs must be a positive number');
  const storeTtlMs = options.storeTtlMs ?? 30 * 24 * 3600 * 1000;
  const sdk = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey || 'not-needed', maxRetries: 0, timeout: timeoutMs });
  const memory = new LRUCache<string, Float32Array>({ max: options.memoryEntries ?? 20_000 });
  const breaker = createEndpointBreaker<number[][]>(options.breaker ?? {}, options.logger);
  let store = options.store;
  const stats: EmbeddingsStats = { calls: { ok: 0, error: 0 }, cacheHits: { memory: 0, store: 0 }, cacheMisses: 0, fallbacks: 0, latenciesMs: [] };
  const keyOf = (text: string) => `emb:${createHash('sha256').update(`${options.model}\u0000${text}`, 'utf8').digest('hex').slice(0, 40)}`;

  async function request(input: string[], signal?: AbortSignal): Promise<number[][]> {
    return breaker.fire(async () => {
      const started = performance.now();
      try {
        const response = await sdk.embeddings.create({ model: options.model, input, encoding_format: 'float' }, { signal, timeout: timeoutMs });
        const vectors = new Array<number[]>(input.length);
        for (const item of response.data) vectors[item.index] = item.embedding;
        if (vectors.some((vector) => !Array.isArray(vector) || vector.length === 0)) throw new Error('embeddings endpoint returned fewer vectors than texts');
        record('ok', performance.now() - started);
        return vectors;
      } catch (error) {
        record('error', performance.now() - started);
        if (signal?.aborted) throw new CallerAbortedError();
        throw error;
      }
    });
  }

  function record(outcome: 'ok' | 'error', latencyMs: number): void {
    stats.calls[outcome] += 1;
    stats.latenciesMs.push(latencyMs);
    if (stats.latenciesMs.length > 1000) stats.latenciesMs.shift();
    options.observer?.onCall?.(outcome, latencyMs);
  }

  function lookup(where: 'memory' | 'store' | 'miss'): void {
    if (where === 'miss') stats.cacheMisses += 1;
    else stats.cacheHits[where] += 1;
    options.observer?.onCacheLookup?.(where);
  }

  return {
    model: options.model,
    stats,
    useStore(next) {
      store = next;
    },
    async embed(texts, signal) {
      const result = new Array<Float32Array | undefined>(texts.length);
      const missing = new Map<string, number[]>();
      for (const [position, { text }] of texts.entries()) {
        const cached = memory.get(keyOf(text));
        if (cached) {
          lookup('memory');
          result[position] = cached;
        } else missing.set(text, [...(missing.get(text) ?? []), position]);
      }
      const shared = new Set(texts.filter((item) => item.shared).map((item) => item.text));
      if (store && missing.size > 0) {
        for (const text of [...missing.keys()].filter((entry) => shared.has(entry))) {
          const stored = await store.get(keyOf(text)).catch(() => undefined);
          if (!Array.isArray(stored)) continue;
          const vector = Float32Array.from(stored as number[]);
          lookup('store');
          memory.set(keyOf(text), vector);
          for (const position of missing.get(text)!) result[position] = vector;
          missing.delete(text);
        }
      }
      const pending = [...missing.keys()];
      for (let start = 0; start < pending.length; start += batchSize) {
        const batch = pending.slice(start, start + batchSize);
        for (let count = 0; count < batch.length; count += 1) lookup('miss');
        let vectors: number[][];
        try {
          vectors = await request(batch, signal);
        } catch (error) {
          stats.fallbacks += 1;
          options.observer?.onFallback?.((error as { code?: string }).code === 'EOPENBREAKER' ? 'circuit_open' : 'error');
          options.logger.warn({ err: (error as Error).message }, 'embeddings endpoint failed; routing stays lexical');
          return undefined;
        }
        for (const [offset, text] of batch.entries()) {
          const vector = unit(vectors[offset]!);
          memory.set(keyOf(text), vector);
          if (store && shared.has(text)) await store.set(keyOf(text), Array.from(vector), storeTtlMs).catch(() => undefined);
          for (const position of missing.get(text)!) result[position] = vector;
        }
      }
      return result as Float32Array[];
    },
  };
}

/** The vector scaled to length 1 (a zero vector stays zero). */
function unit(vector: readonly number[]): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  return Float32Array.from(vector, (value) => value / norm);
}

/** Cosine of two unit vectors (0 when their lengths differ). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let index = 0; index < a.length; index += 1) dot += a[index]! * b[index]!;
  return dot;
}
