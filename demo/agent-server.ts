/**
 * Serves one demo agent over HTTP with node:http: `POST /invoke` (JSON reply,
 * or `text/event-stream` for a streaming agent) and `GET /healthz`.
 * Request bodies are read with a size cap and checked before the handler runs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AgentReply, AgentRequestBody } from '../src/agents/types.js';
import { safeJsonParse } from '../src/util/safe-json.js';
import type { DemoAgentDefinition } from './travel-agents.js';

/** How one demo agent server behaves. */
export interface AgentServerOptions {
  /** Extra delay of a reply; a streaming agent spreads it between its events. */
  latencyMs: number;
  /** When set, requests must carry `authorization: Bearer <token>`. */
  bearerToken?: string;
}

const MAX_REQUEST_BYTES = 256 * 1024;
const MIN_EVENT_GAP_MS = 50;

/** Creates (does not start) the HTTP server of one demo agent. */
export function createAgentServer(agent: DemoAgentDefinition, options: AgentServerOptions): Server {
  return createServer((request, response) => {
    handle(agent, options, request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { status: 'failed', message: `internal error: ${(error as Error).message}` });
      else response.destroy();
    });
  });
}

async function handle(agent: DemoAgentDefinition, options: AgentServerOptions, request: IncomingMessage, response: ServerResponse) {
  const path = (request.url ?? '/').split('?')[0];
  if (request.method === 'GET' && path === '/healthz') return sendJson(response, 200, { status: 'ok', agent: agent.id });
  if (path !== '/invoke') return sendJson(response, 404, { status: 'failed', message: `no route ${request.method} ${path}; use POST /invoke` });
  if (request.method !== 'POST') return sendJson(response, 405, { status: 'failed', message: 'use POST /invoke' });
  if (options.bearerToken && request.headers.authorization !== `Bearer ${options.bearerToken}`) {
    return sendJson(response, 401, { status: 'failed', message: 'missing or wrong bearer token' });
  }
  const text = await readBody(request);
  if (text === undefined) return sendJson(response, 413, { status: 'failed', message: `request body over ${MAX_REQUEST_BYTES} bytes` });
  const parsed = parseRequest(text);
  if (!parsed.ok) return sendJson(response, 400, { status: 'failed', message: parsed.error });

  if (!agent.streaming) {
    const reply = await agent.handle(parsed.value, { progress: async () => undefined });
    await pause(options.latencyMs);
    if (!response.destroyed) sendJson(response, 200, reply);
    return;
  }

  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  response.flushHeaders();
  // Two progress events then the result: spread the latency over the two gaps.
  const gap = Math.max(MIN_EVENT_GAP_MS, Math.round(options.latencyMs / 2));
  let sentProgress = 0;
  const reply = await agent.handle(parsed.value, {
    async progress(content) {
      if (sentProgress++ > 0) await pause(gap);
      if (!response.destroyed) response.write(`event: progress\ndata: ${JSON.stringify({ content })}\n\n`);
    },
  });
  if (sentProgress > 0) await pause(gap);
  if (response.destroyed) return;
  response.end(`event: result\ndata: ${JSON.stringify(reply)}\n\n`);
}

/** Checks the parts of a request body the demo agents rely on. */
function parseRequest(text: string): { ok: true; value: AgentRequestBody } | { ok: false; error: string } {
  const parsed = safeJsonParse(text);
  if (!parsed.ok) return { ok: false, error: `the request body is not JSON: ${parsed.error}` };
  const value = parsed.value as Partial<AgentRequestBody> | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'the request body must be a JSON object' };
  if (typeof value.task_id !== 'string' || value.task_id === '') return { ok: false, error: 'task_id must be a non-empty string' };
  if (value.inputs !== undefined && (typeof value.inputs !== 'object' || value.inputs === null || Array.isArray(value.inputs))) {
    return { ok: false, error: 'inputs must be an object' };
  }
  if (value.upstream !== undefined && (typeof value.upstream !== 'object' || value.upstream === null || Array.isArray(value.upstream))) {
    return { ok: false, error: 'upstream must be an object' };
  }
  return {
    ok: true,
    value: {
      task_id: value.task_id,
      message: typeof value.message === 'string' ? value.message : '',
      inputs: value.inputs ?? {},
      user_id: typeof value.user_id === 'string' ? value.user_id : '',
      thread_id: typeof value.thread_id === 'string' ? value.thread_id : '',
      trace_id: typeof value.trace_id === 'string' ? value.trace_id : '',
      upstream: value.upstream ?? {},
    },
  };
}

function sendJson(response: ServerResponse, status: number, body: AgentReply | Record<string, unknown>): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** The body as text, or undefined when it is over the cap. */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function pause(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
