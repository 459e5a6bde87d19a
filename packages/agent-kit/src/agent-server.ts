/**
 * A sub-agent endpoint in a few lines: `createAgentServer({ handle })` serves
 * `POST /invoke` over node:http (no web framework needed) and speaks both wire
 * protocols of Switchboard's sub-agent contract. The request is size-capped
 * and checked against the request schema before `handle` runs; the reply is
 * checked against the reply envelope before it is sent, so a handler bug shows
 * up as a clear `failed` reply instead of a malformed one. A retry with the
 * same `task_id` (and the same body) gets the first call's reply without running
 * `handle` again, so a retried booking is not booked twice.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { checkAgentReply, checkAgentRequest, parseJson, type AgentReply, type AgentRequestBody } from './wire.js';

/** What a handler can do besides returning its reply. */
export interface AgentHandlerContext {
  /** Sends a `progress` event (http-sse); does nothing for http-json. */
  progress(content: string): Promise<void>;
  /** Aborted when the caller goes away (timeout, cancelled turn). */
  readonly signal: AbortSignal;
  /** Request headers, lower-cased (`x-trace-id`, `x-request-id`, `x-switchboard-depth`, ...). */
  readonly headers: IncomingHttpHeaders;
}

/** The agent's logic: one request in, one reply envelope out. */
export type AgentHandler = (request: AgentRequestBody, context: AgentHandlerContext) => Promise<AgentReply> | AgentReply;

/** Options of `createAgentServer`. */
export interface AgentServerOptions {
  handle: AgentHandler;
  /** `http-sse` streams `progress` events and one `result`; default `http-json`. */
  protocol?: 'http-json' | 'http-sse';
  /** Path of the endpoint (default `/invoke`). `GET /healthz` is always served. */
  path?: string;
  /** Largest request body accepted (default 256 KiB); larger ones get 413. */
  maxRequestBytes?: number;
  /** Return false to answer 401 (e.g. check `authorization`). */
  authorize?: (headers: IncomingHttpHeaders) => boolean;
  /** How many replies are remembered by `task_id` for retries (default 1000; 0 turns it off). */
  rememberReplies?: number;
}

const DEFAULT_MAX_REQUEST_BYTES = 256 * 1024;

/** Creates (does not start) the HTTP server of one sub-agent; call `.listen(port)`. */
export function createAgentServer(options: AgentServerOptions): Server {
  const protocol = options.protocol ?? 'http-json';
  const path = options.path ?? '/invoke';
  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const remembered = (options.rememberReplies ?? 1000) > 0 ? createReplyMemory(options.rememberReplies ?? 1000) : undefined;

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestPath = (request.url ?? '/').split('?')[0];
    if (request.method === 'GET' && requestPath === '/healthz') return sendJson(response, 200, { status: 'ok' });
    if (requestPath !== path) return sendJson(response, 404, failed(`no route ${request.method} ${requestPath}; use POST ${path}`));
    if (request.method !== 'POST') return sendJson(response, 405, failed(`use POST ${path}`));
    if (options.authorize && !options.authorize(request.headers)) return sendJson(response, 401, failed('not authorized'));
    const text = await readBody(request, maxRequestBytes);
    if (text === undefined) return sendJson(response, 413, failed(`request body over ${maxRequestBytes} bytes`));
    const json = parseJson(text);
    if (!json.ok) return sendJson(response, 400, failed(`the request body is not JSON: ${json.error}`));
    const checked = checkAgentRequest(json.value);
    if (!checked.ok) return sendJson(response, 400, failed(`the request body is not a valid request: ${checked.error}`));
    const body = checked.value;

    const controller = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) controller.abort();
    });
    const streaming = protocol === 'http-sse';
    if (streaming) {
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      response.flushHeaders();
    }
    const context: AgentHandlerContext = {
      signal: controller.signal,
      headers: request.headers,
      async progress(content) {
        if (streaming && !response.destroyed) response.write(`event: progress\ndata: ${JSON.stringify({ content })}\n\n`);
      },
    };
    const reply = await replyFor(body, context);
    if (response.destroyed) return;
    if (streaming) response.end(`event: result\ndata: ${JSON.stringify(reply)}\n\n`);
    else sendJson(response, 200, reply);
  }

  /** Runs the handler once per task_id; a concurrent or later retry shares the result. */
  function replyFor(body: AgentRequestBody, context: AgentHandlerContext): Promise<AgentReply> {
    // Keyed by task_id and body: a reused task_id with other inputs is a new task, not a retry.
    const key = `${body.task_id}\u0000${createHash('sha256').update(JSON.stringify(body)).digest('base64url')}`;
    const earlier = remembered?.get(key);
    if (earlier) return earlier;
    const running = runHandler(body, context, () => remembered?.delete(key));
    remembered?.set(key, running);
    return running;
  }

  async function runHandler(body: AgentRequestBody, context: AgentHandlerContext, forget: () => void): Promise<AgentReply> {
    let reply: unknown;
    try {
      reply = await options.handle(body, context);
    } catch (error) {
      // A crash is not remembered: a retry should really retry.
      forget();
      return failed(`internal error: ${error instanceof Error ? error.message : String(error)}`);
    }
    const checked = checkAgentReply(reply);
    return checked.ok ? checked.value : failed(`the agent produced an invalid reply: ${checked.error}`);
  }

  return createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, failed(`internal error: ${(error as Error).message}`));
      else response.destroy();
    });
  });
}

/** The last `max` replies by key, oldest dropped first (a Map keeps insertion order). */
function createReplyMemory(max: number) {
  const entries = new Map<string, Promise<AgentReply>>();
  return {
    get(key: string): Promise<AgentReply> | undefined {
      const value = entries.get(key);
      if (value) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key: string, value: Promise<AgentReply>): void {
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
    },
    delete(key: string): void {
      entries.delete(key);
    },
  };
}

function failed(message: string): AgentReply {
  return { status: 'failed', message };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The body as text, or undefined when it is over the cap (the rest is drained, not buffered). */
function readBody(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
