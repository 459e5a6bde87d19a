/**
 * Agent Cards of agents registered by `a2a_card: <url>` (docs/api.md#registry-file).
 * Building a snapshot stays synchronous: the cards a registry file names are
 * fetched first (at load and on every reload), and the build reads them from
 * the resulting map. The SDK's `DefaultAgentCardResolver` fetches and
 * normalises each card (a v0.3 card is translated to the v1.0 shape); the
 * fetch it is given refuses link-local / metadata addresses (unless the file
 * allows private endpoints), follows no redirect, gives up after a timeout and
 * reads at most `maxBytes`.
 *
 * A card that cannot be fetched fails its agent only: the agent is kept, not
 * routable, with the reason (shown by `GET /v1/agents`). A good card is
 * cached: reloads within `ttlMs` reuse it, and a later fetch that fails falls
 * back to it (with the reason still shown).
 */
import { createHash } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import type { AgentCard as A2aCard } from '@a2a-js/sdk';
import { parseDocument } from 'yaml';
import { interpolateEnv } from './env-interpolation.js';

/** What the build knows about one card url. */
export type FetchedA2aCard =
  | { readonly ok: true; readonly card: A2aCard; readonly fetchedAt: string; /** Set when this is a cached copy because the latest fetch failed. */ readonly error?: string }
  | { readonly ok: false; readonly error: string };

/** Card url (after `${VAR}` resolution) → what was fetched. */
export type A2aCardMap = ReadonlyMap<string, FetchedA2aCard>;

export interface A2aCardFetcherOptions {
  /** What requests go through (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Wraps the fetch with the resolved-address check (the agent client's `createEndpointFetch`); absent = no check. */
  checkedFetch?: (fetch: typeof globalThis.fetch, lookup?: LookupFunction) => typeof globalThis.fetch;
  lookup?: LookupFunction;
  /** Per-card timeout. Default 5000 ms. */
  timeoutMs?: number;
  /** A good card is reused for this long. Default 60000 ms; 0 = fetched on every load. */
  ttlMs?: number;
  /** Largest card accepted. Default 256 KiB. */
  maxBytes?: number;
  now?: () => number;
}

export interface A2aCardFetcher {
  /** Fetches (or reuses) every card the registry text names. Never throws. */
  resolveFor(text: string, env: Readonly<Record<string, string | undefined>>): Promise<A2aCardMap>;
}

/** The card urls a registry text names, `${VAR}` resolved, and whether private endpoints are allowed. */
export function cardUrlsOf(text: string, env: Readonly<Record<string, string | undefined>>): { urls: string[]; allowPrivate: boolean } {
  let data: unknown;
  try {
    data = parseDocument(text).toJS();
  } catch {
    return { urls: [], allowPrivate: false };
  }
  const root = (typeof data === 'object' && data !== null ? data : {}) as { agents?: unknown; supervisor?: { allow_private_endpoints?: unknown } };
  const urls = new Set<string>();
  for (const agent of Array.isArray(root.agents) ? root.agents : []) {
    const template = (agent as { a2a_card?: unknown } | null)?.a2a_card;
    if (typeof template !== 'string') continue;
    const resolved = interpolateEnv(template, env);
    if (resolved.ok) urls.add(resolved.value);
  }
  return { urls: [...urls], allowPrivate: root.supervisor?.allow_private_endpoints === true };
}

/** A short hash of the cards a build used, so a changed card makes a new snapshot version. */
export function cardsFingerprint(cards: A2aCardMap): string {
  if (cards.size === 0) return '';
  const entries = [...cards].sort(([a], [b]) => a.localeCompare(b)).map(([url, fetched]) => [url, fetched.ok ? fetched.card : { error: fetched.error }]);
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 12);
}

/** Creates the fetcher a live registry keeps (its cache lives as long as it does). */
export function createA2aCardFetcher(options: A2aCardFetcherOptions = {}): A2aCardFetcher {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const ttlMs = options.ttlMs ?? 60_000;
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const now = options.now ?? Date.now;
  const plainFetch = options.fetch ?? globalThis.fetch;
  const checked = options.checkedFetch ? options.checkedFetch(plainFetch, options.lookup) : plainFetch;
  const cache = new Map<string, { card: A2aCard; fetchedAt: number }>();

  async function fetchOne(url: string, allowPrivate: boolean): Promise<FetchedA2aCard> {
    const cached = cache.get(url);
    if (cached && now() - cached.fetchedAt < ttlMs) return { ok: true, card: cached.card, fetchedAt: new Date(cached.fetchedAt).toISOString() };
    const fetchImpl = cappedFetch(allowPrivate ? plainFetch : checked, timeoutMs, maxBytes);
    try {
      const card = await new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }).resolve(url, '');
      if (typeof card?.name !== 'string') throw new Error('the document is not an Agent Card');
      const fetchedAt = now();
      cache.set(url, { card, fetchedAt });
      return { ok: true, card, fetchedAt: new Date(fetchedAt).toISOString() };
    } catch (error) {
      const reason = `the Agent Card at ${describe(url)} could not be fetched: ${messageOf(error)}`;
      if (cached) return { ok: true, card: cached.card, fetchedAt: new Date(cached.fetchedAt).toISOString(), error: `${reason}; using the copy fetched earlier` };
      return { ok: false, error: reason };
    }
  }

  return {
    async resolveFor(text, env) {
      const { urls, allowPrivate } = cardUrlsOf(text, env);
      const fetched = await Promise.all(urls.map(async (url) => [url, await fetchOne(url, allowPrivate)] as const));
      return new Map(fetched);
    },
  };
}

function cappedFetch(fetchImpl: typeof globalThis.fetch, timeoutMs: number, maxBytes: number): typeof globalThis.fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const response = await fetchImpl(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok || !response.body) return response;
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`the card is larger than ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
    return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
  };
}

function describe(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return 'its url';
  }
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (error.name === 'TimeoutError') return 'no answer in time';
  if (cause instanceof Error) return (cause as Error & { code?: string }).code ?? cause.message;
  // The SDK names the full url in its message; keep only the status.
  const status = /: (\d{3})$/.exec(error.message)?.[1];
  return status ? `HTTP ${status}` : error.message;
}
