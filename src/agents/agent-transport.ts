/**
 * How the HTTP protocols (`http-json`, `http-sse`) send one request to a
 * sub-agent and read its reply.
 *
 * The default sends with `undici.request` through keep-alive connection
 * pools (one undici `Agent`, a pool per origin), and reads the body as a Node
 * stream: no WHATWG `Request`/`Response`/`ReadableStream` per call. The
 * resolved-address check of decision 0023 is the pools' `connect.lookup`, so
 * the address a connection is opened to is the address that was judged; a
 * kept-alive connection was judged when it opened. Agents of a registry with
 * `allow_private_endpoints: true` use a second pool set without the check.
 *
 * A handed-in `fetch` (tests answering with prepared `Response`s) is the
 * other way to send: the same reply shape over a fetch `Response`.
 *
 * Redirects are never followed on either way: a redirect could carry the
 * card's headers (secrets) to another host. `undici.request` follows none;
 * the fetch way asks for `redirect: 'manual'`.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import { Agent, request, type Dispatcher } from 'undici';
import { AGENT_BODY_HIGH_WATER_MARK } from './budgeted-body.js';
import { refusingLookup } from './endpoint-fetch.js';

/** One POST to an agent. */
export interface AgentHttpRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON text of the request body. */
  readonly body: string;
  readonly signal: AbortSignal;
}

/** An agent's reply: status and headers at once, the body as it arrives. */
export interface AgentHttpReply {
  readonly status: number;
  readonly statusText: string;
  /** A header's value (lower-case name), several values joined by `, `. */
  header(name: string): string | undefined;
  /** The body chunk by chunk; leaving the iteration early drops the rest (and, unless it had ended, the connection). */
  readonly body: AsyncIterable<Uint8Array> | undefined;
  /** The same body as undici's Node stream (the pools' way), read so its bytes count in the budget as they arrive. */
  readonly stream?: Readable;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/** Sends one POST; rejects when no reply came (no connection, refused address, abort). */
export type AgentPost = (request: AgentHttpRequest) => Promise<AgentHttpReply>;

/** Limits of the keep-alive pools. */
export interface AgentPoolOptions {
  /** Resolves endpoint host names when a connection opens (default `dns.lookup`). */
  lookup?: LookupFunction;
  /** Connections open at once to one origin (default: unbounded; calls are limited per agent before they reach the pool, `connection-limits.ts`). */
  connectionsPerOrigin?: number;
  /** How long an idle connection is kept when the agent gives no `Keep-Alive` hint (default 10 s). */
  keepAliveTimeoutMs?: number;
}

const DEFAULT_KEEP_ALIVE_MS = 10_000;
/** Upper bound on an agent's own `Keep-Alive: timeout=` hint. */
const MAX_KEEP_ALIVE_MS = 60_000;

/** The two pool sets of an agent client: checked (the default) and unchecked (`allow_private_endpoints`). */
export interface AgentPools {
  readonly checked: AgentPost;
  readonly unchecked: AgentPost;
  /** Ends every pooled connection at once (a request still in flight fails); for shutdown, after turns drained. */
  close(): Promise<void>;
}

/** Creates the keep-alive pools a client sends through. */
export function createAgentPools(options: AgentPoolOptions = {}): AgentPools {
  const lookup = options.lookup ?? (dnsLookup as LookupFunction);
  const settings = {
    connections: options.connectionsPerOrigin ?? null,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_MS,
    keepAliveMaxTimeout: MAX_KEEP_ALIVE_MS,
  };
  const checked = new Agent({ ...settings, connect: { lookup: refusingLookup(lookup) } });
  const unchecked = new Agent({ ...settings, connect: { lookup } });
  return {
    checked: postWithDispatcher(checked),
    unchecked: postWithDispatcher(unchecked),
    async close() {
      await Promise.all([checked.destroy(), unchecked.destroy()]);
    },
  };
}

/** Sends through an undici dispatcher with `undici.request`. */
export function postWithDispatcher(dispatcher: Dispatcher): AgentPost {
  return async ({ url, headers, body, signal }) => {
    // A small stream buffer: what undici holds of a body before it stops reading the socket is outside the budget.
    const reply = await request(url, { method: 'POST', headers, body, signal, dispatcher, highWaterMark: AGENT_BODY_HIGH_WATER_MARK });
    const stream = reply.body;
    // Dropping an unfinished body ends it with an abort error; nobody is left to hear it.
    stream.on('error', ignore);
    return {
      status: reply.statusCode,
      statusText: reply.statusText ?? '',
      header(name) {
        const value = reply.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      body: stream,
      stream,
      async discard() {
        stream.destroy();
      },
    };
  };
}

/** Sends through a fetch (a handed-in one, or the A2A path's). */
export function postWithFetch(fetchFunction: typeof globalThis.fetch): AgentPost {
  return async ({ url, headers, body, signal }) => {
    const response = await fetchFunction(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
    return {
      status: response.status,
      statusText: response.statusText,
      header: (name) => response.headers.get(name) ?? undefined,
      body: response.body ? chunksOf(response.body) : undefined,
      async discard() {
        await response.body?.cancel().catch(() => undefined);
      },
    };
  };
}

function ignore(): void {}

/** A web stream's chunks as an async iterable; leaving early cancels the stream. */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
