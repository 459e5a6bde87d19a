/**
 * A lenient OpenAI-compatible endpoint for the contract tests: every
 * `POST /v1/chat/completions` is recorded and answered by the handler the
 * current test installed (plain JSON, SSE stream, error status with
 * `retry-after`, a body that is not JSON, a hang, a cut stream).
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelRequest {
  index: number;
  at: number;
  stream: boolean;
  body: { model?: string; messages?: { role: string; content: string }[]; stream?: boolean; response_format?: unknown };
}

export type ModelReply =
  | { content: string | Record<string, unknown> }
  | { status: number; retryAfter?: string }
  | { malformed: true }
  | { hang: true }
  /** Streaming only: send these chunks, then cut the connection without finishing. */
  | { cutAfter: string[] };

export interface FakeModel {
  baseUrl: string;
  requests: ModelRequest[];
  /** Installs the answer for every following request. */
  answer(handler: (request: ModelRequest) => ModelReply): void;
  close(): Promise<void>;
}

export async function startFakeModel(): Promise<FakeModel> {
  const requests: ModelRequest[] = [];
  let handler: (request: ModelRequest) => ModelReply = () => ({ status: 500 });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
        return;
      }
      let body: ModelRequest['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ModelRequest['body'];
      } catch {
        body = {};
      }
      const recorded: ModelRequest = { index: requests.length, at: Date.now(), stream: body.stream === true, body };
      requests.push(recorded);
      respond(handler(recorded), recorded, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    answer(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function respond(reply: ModelReply, request: ModelRequest, response: ServerResponse): void {
  if ('hang' in reply) return;
  if ('status' in reply) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
    response.writeHead(reply.status, headers);
    response.end(JSON.stringify({ error: { message: `scripted ${reply.status}`, type: reply.status === 429 ? 'rate_limit_error' : 'server_error' } }));
    return;
  }
  if ('malformed' in reply) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('<html>gateway hiccup</html>');
    return;
  }
  const id = `chatcmpl-contract-${request.index}`;
  const model = request.body.model ?? 'contract-model';
  if ('cutAfter' in reply) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of reply.cutAfter) response.write(`data: ${JSON.stringify(chunk(id, model, { content: piece }, null))}\n\n`);
    setTimeout(() => response.destroy(), 20);
    return;
  }
  const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
  if (!request.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces = content.match(/[\s\S]{1,6}/g) ?? [''];
  response.write(`data: ${JSON.stringify(chunk(id, model, { role: 'assistant', content: '' }, null))}\n\n`);
  for (const piece of pieces) response.write(`data: ${JSON.stringify(chunk(id, model, { content: piece }, null))}\n\n`);
  response.write(`data: ${JSON.stringify(chunk(id, model, {}, 'stop'))}\n\n`);
  response.write(`data: ${JSON.stringify({ ...chunk(id, model, {}, null), choices: [], usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 } })}\n\n`);
  response.end('data: [DONE]\n\n');
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null) {
  return { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] };
}
