/**
 * The fetch the model gateway hands the `openai` client: `undici.request`
 * through keep-alive connection pools (an undici `Agent`, a pool per origin),
 * with the reply wrapped as a WHATWG `Response` for the client. Node's
 * `fetch` costs about four times the CPU of `request` per call for the same
 * exchange (its request/response objects, header guards and fetch
 * controller); the client only needs a `Response` at the end.
 *
 * What the client sees stays fetch's:
 * - a failure before any reply rejects with `TypeError('fetch failed')`,
 *   the network error as its `cause`; an abort rejects with the signal's
 *   reason;
 * - the body arrives as it comes (streamed completions), and cancelling it
 *   or aborting the signal ends the request; a compressed body (never asked
 *   for) is decoded;
 * - a redirect is followed as fetch would, by handing the request to
 *   `globalThis.fetch` (rare: an endpoint url that moved);
 * - a request this way cannot send (a `Request` object, a body other than
 *   text or bytes) goes through `globalThis.fetch` unchanged.
 */
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request, type Dispatcher } from 'undici';

/** A pooled fetch and the way to end its connections. */
export interface ModelFetch {
  readonly fetch: typeof globalThis.fetch;
  /** Ends the pooled connections once the requests in flight are done; later requests fail. */
  close(): Promise<void>;
}

/** Limits of the model pools. */
export interface ModelFetchOptions {
  /** Connections open at once to one origin; further requests wait for one (default 64). */
  connectionsPerOrigin?: number;
  /** How long an idle connection is kept when the endpoint gives no `Keep-Alive` hint (default 10 s). */
  keepAliveTimeoutMs?: number;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Creates a fetch over keep-alive pools of its own. */
export function createModelFetch(options: ModelFetchOptions = {}): ModelFetch {
  const dispatcher = new Agent({
    connections: options.connectionsPerOrigin ?? 64,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    keepAliveMaxTimeout: 60_000,
  });
  return {
    fetch: pooledFetch(dispatcher),
    async close() {
      await dispatcher.close();
    },
  };
}

/** A fetch that sends with `undici.request` through `dispatcher` (see the file header). */
export function pooledFetch(dispatcher: Dispatcher): typeof globalThis.fetch {
  return async (input, init = {}) => {
    const body = init.body;
    const sendable = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
    if (typeof input !== 'string' && !(input instanceof URL)) return globalThis.fetch(input, init);
    if (!sendable) return globalThis.fetch(input, init);
    const method = (init.method ?? 'GET').toUpperCase();
    const signal = init.signal ?? undefined;
    let reply: Dispatcher.ResponseData;
    try {
      reply = await request(input, { method, headers: headerRecord(init.headers), body: body ?? undefined, signal, dispatcher });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new TypeError('fetch failed', { cause: error });
    }
    const stream = reply.body;
    // A dropped body ends with an abort error; the web stream (or nobody) is its reader.
    stream.on('error', ignore);
    if (REDIRECT_STATUSES.has(reply.statusCode) && reply.headers.location !== undefined && init.redirect !== 'manual') {
      stream.destroy();
      return globalThis.fetch(input, init);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(reply.headers)) {
      if (Array.isArray(value)) for (const each of value) headers.append(name, each);
      else if (value !== undefined) headers.append(name, value);
    }
    const nullBody = NULL_BODY_STATUSES.has(reply.statusCode) || method === 'HEAD';
    if (nullBody) stream.destroy();
    return new Response(nullBody ? null : (Readable.toWeb(decoded(stream, reply.headers['content-encoding'])) as ReadableStream<Uint8Array>), {
      status: reply.statusCode,
      statusText: reply.statusText ?? '',
      headers,
    });
  };
}

/**
 * The body decoded as fetch would: no compression is asked for, but an
 * endpoint (or a proxy before it) that compresses anyway is still read.
 */
function decoded(stream: Readable, encoding: string | string[] | undefined): Readable {
  const name = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).trim().toLowerCase();
  const decoder = name === 'gzip' || name === 'x-gzip' ? createGunzip() : name === 'deflate' ? createInflate() : name === 'br' ? createBrotliDecompress() : undefined;
  if (!decoder) return stream;
  // Errors of either side reach the decoder, the stream the client reads; an ended read ends both.
  pipeline(stream, decoder, ignore);
  return decoder;
}

/** Any `HeadersInit` as a plain record (names lower-cased, as `Headers` gives them). */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  const add = (value: string, name: string) => {
    const key = name.toLowerCase();
    record[key] = record[key] === undefined ? value : `${record[key]}, ${value}`;
  };
  if (init === undefined) return record;
  if (init instanceof Headers) init.forEach(add);
  else if (Array.isArray(init)) for (const [name, value] of init) add(value!, name!);
  else for (const [name, value] of Object.entries(init)) add(value, name);
  return record;
}

function ignore(): void {}
