/**
 * The response cache per agent (docs/api.md#sub-agent-wire-protocol): a completed reply of an
 * agent with `cache_ttl_s` is reused for the same (agent, inputs) on the same
 * registry version for that long, instead of sending the sub-task again.
 *
 * Key: registry version + agent + canonical inputs, plus the user when the
 * inputs may be the user's own data (cache-scope.ts). An agent called without
 * inputs is keyed on its sub-task message too, since the message is then all
 * it is asked; one with inputs on the message's residual qualifiers (what
 * the extractor did not capture, cache-scope.ts: "下个月", "这周末"), since the
 * agent reads them too. Agents with `side_effects` are never cached (the registry
 * rejects `cache_ttl_s` on them; this is checked again here).
 *
 * An agent with `stale_if_error_s` keeps its entries that long (when longer
 * than its TTL): past the TTL they are no longer answers, only a fallback
 * for when a call fails or its breaker is open (`lookupStale`).
 */
import type { Logger } from '../../logger.js';
import type { AgentCard } from '../../registry/index.js';
import { type KeyValue, type KeyValueStore, tenantOfOwner } from '../../store/index.js';
import { normalizeQueryForCache } from '../../intent/index.js';
import { canonicalJson, digest, isUserSpecific, residualQualifiers } from './cache-scope.js';
import { taskNormalForm } from '../../understanding/index.js';

/** A reply as the cache keeps it. */
export interface CachedReply {
  status: 'completed';
  output?: Record<string, unknown>;
  message?: string;
  /** ISO time it was stored. */
  cached_at: string;
}

/** What identifies one sub-task's request to the cache. */
export interface ReplyCacheRequest {
  card: AgentCard;
  registryVersion: string;
  /** The owner key of the user (the user id within its tenant): per-user entries are keyed on it, shared ones on its tenant. */
  userId: string;
  inputs: Readonly<Record<string, unknown>>;
  message: string;
  /** The user's today (date expressions of the message resolve against it); default now. */
  today?: Date;
}

export interface ResponseCache {
  /** The cached reply for this request, if the agent is cacheable and one is live. */
  lookup(request: ReplyCacheRequest): Promise<CachedReply | undefined>;
  /** The newest stored reply no older than the agent's `stale_if_error_s`, for when the call failed; with its age. */
  lookupStale(request: ReplyCacheRequest): Promise<(CachedReply & { ageS: number }) | undefined>;
  /** Stores a completed reply for the agent's `cache_ttl_s` (kept for `stale_if_error_s` when longer). */
  remember(request: ReplyCacheRequest, reply: { output?: Record<string, unknown>; message?: string }): Promise<void>;
}

/** True when the agent's replies may be cached. */
export function isCacheable(card: AgentCard): boolean {
  return card.cacheTtlS !== undefined && card.cacheTtlS > 0 && card.sideEffects !== true;
}

/** The cache key of one request. */
export function replyCacheKey(request: ReplyCacheRequest): string {
  const hasInputs = Object.values(request.inputs).some((value) => value !== undefined && value !== null);
  // A shared reply is shared within a tenant only (the tenant is read from the owner key).
  const scope = isUserSpecific(request.card, request.inputs) ? `user:${digest(request.userId)}` : `shared:${tenantOfOwner(request.userId)}`;
  const subject =
    canonicalJson(request.inputs) +
    (hasInputs ? `|q:${residualQualifiers(taskNormalForm(request.message), [request.card], Object.values(request.inputs), request.today ?? new Date())}` : `|${normalizeQueryForCache(request.message)}`);
  return `reply:${request.registryVersion}:${request.card.id}:${scope}:${digest(subject)}`;
}

/**
 * Creates the response cache over a key-value store. Store failures are logged
 * and read as a miss. `onLookup` is told the outcome of each lookup of a
 * cacheable agent (metrics).
 */
export function createResponseCache(options: { store: KeyValueStore; logger: Logger; now?: () => Date; onLookup?: (hit: boolean) => void }): ResponseCache {
  const { store, logger, onLookup } = options;
  const now = options.now ?? (() => new Date());
  const read = async (request: ReplyCacheRequest): Promise<(CachedReply & { ageS: number }) | undefined> => {
    const value = await store.get(replyCacheKey(request)).catch((error: unknown) => {
      logger.warn({ err: error, agent: request.card.id }, 'response cache read failed');
      return undefined;
    });
    if (!value || typeof value !== 'object' || Array.isArray(value) || value.status !== 'completed') return undefined;
    const entry = value as unknown as CachedReply;
    const storedAt = Date.parse(entry.cached_at);
    const ageS = Number.isFinite(storedAt) ? Math.max(0, (now().getTime() - storedAt) / 1000) : Number.POSITIVE_INFINITY;
    return { ...entry, ageS };
  };
  return {
    async lookup(request) {
      if (!isCacheable(request.card)) return undefined;
      const entry = await read(request);
      // Kept longer for stale-if-error, an entry past the TTL is no answer.
      const fresh = entry !== undefined && entry.ageS <= request.card.cacheTtlS!;
      onLookup?.(fresh);
      if (!fresh) return undefined;
      const { ageS: _age, ...reply } = entry;
      return reply;
    },
    async lookupStale(request) {
      const limitS = request.card.staleIfErrorS;
      if (!isCacheable(request.card) || limitS === undefined) return undefined;
      const entry = await read(request);
      return entry !== undefined && entry.ageS <= limitS ? entry : undefined;
    },
    async remember(request, reply) {
      if (!isCacheable(request.card)) return;
      const entry: CachedReply = {
        status: 'completed',
        ...(reply.output ? { output: reply.output } : {}),
        ...(typeof reply.message === 'string' ? { message: reply.message } : {}),
        cached_at: now().toISOString(),
      };
      const keepS = Math.max(request.card.cacheTtlS!, request.card.staleIfErrorS ?? 0);
      await store.set(replyCacheKey(request), entry as unknown as KeyValue, keepS * 1000).catch((error: unknown) => {
        logger.warn({ err: error, agent: request.card.id }, 'response cache write failed');
      });
    },
  };
}
