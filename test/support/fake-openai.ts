/**
 * A strict, scripted OpenAI-compatible server for tests: real HTTP on
 * 127.0.0.1, `POST /v1/chat/completions` (plain JSON and SSE streaming) and
 * `GET /v1/models`.
 *
 * Strict by default: replies are served in order, one per chat request. Every
 * request is recorded. A request with no reply left is answered 500 and
 * recorded as an error; `assertComplete()` throws on any recorded error and on
 * replies left unused, so a test notices both a model call too many and one
 * too few. Lenient mode (`answerAll`) answers every request with a function of
 * it, for black-box tests that do not know how many calls a turn makes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer, with optional faults. */
export interface ScriptedReplySpec {
  /** Assistant text; an object or array is sent as its JSON text. Default `""`. */
  content?: string | Record<string, unknown> | unknown[];
  /** Wait before answering (before the first byte). */
  latencyMs?: number;
  /** Answer with this HTTP error status (429, 500, 503, ...) and an OpenAI-style error body. */
  status?: number;
  /** With an error status: `retry-after` header, seconds (number) or any header text. */
  retryAfter?: number | string;
  /** Error message for `status`. */
  errorMessage?: string;
  /** Answer 200 with a body that is not JSON (or, when streaming, a data line that is not JSON). */
  malformed?: boolean;
  /** Never answer; the connection stays open until the client gives up. */
  hang?: boolean;
  /** Answer 400 like a server that does not support the request's `response_format`. */
  rejectResponseFormat?: boolean;
  /** Streaming: the exact deltas to send (their concatenation is the content). */
  streamChunks?: string[];
  /** Streaming: wait between chunks. */
  chunkDelayMs?: number;
  /** Streaming: close the stream before the final chunk (no finish_reason, no [DONE]). */
  truncateStream?: boolean;
  /** Token counts to report; `false` sends no usage at all. Default: a rough count. */
  usage?: { prompt_tokens: number; completion_tokens: number } | false;
}

/** A reply is a text, a spec, or a function of the request that returns one. */
export type ScriptedReply = string | ScriptedReplySpec | ((request: RecordedRequest) => string | ScriptedReplySpec);

/** The parsed JSON body of a chat completion request (the fields tests look at, plus the rest). */
export interface ChatRequestBody {
  model?: string;
  messages?: { role: string; content: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
  temperature?: number;
  max_tokens?: number;
  [field: string]: unknown;
}

/** One chat completion request as received. */
export interface RecordedRequest {
  /** 0-based position among chat requests. */
  index: number;
  /** Arrival time, `Date.now()`. */
  at: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: ChatRequestBody;
  model: string | undefined;
  messages: { role: string; content: string }[];
  stream: boolean;
  response_format: ChatRequestBody['response_format'];
}

export interface FakeOpenAI {
  /** Base URL to hand to a client, ending in `/v1`. */
  readonly baseUrl: string;
  /** Chat completion requests in arrival order. */
  readonly requests: RecordedRequest[];
  /** Problems seen so far (unexpected calls, unknown paths, bad bodies, throwing matchers). */
  readonly errors: string[];
  /** TCP connections clients opened to the fake so far. */
  readonly connections: number;
  /** Replies not served yet. */
  remaining(): number;
  /** Appends replies to the script. */
  push(...replies: ScriptedReply[]): void;
  /** Lenient mode from now on: every request is answered by `handler`; the script is not used. */
  answerAll(handler: (request: RecordedRequest) => string | ScriptedReplySpec): void;
  /** Throws when any error was recorded or scripted replies are left unused. */
  assertComplete(): void;
  /** Stops the server, cutting hanging connections; calling it again is harmless. */
  close(): Promise<void>;
}

export interface FakeOpenAIOptions {
  replies?: ScriptedReply[];
  /** Model ids listed by `GET /v1/models`. */
  models?: string[];
}

/** Starts a fake endpoint on an ephemeral port of 127.0.0.1. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const script: ScriptedReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const errors: string[] = [];
  const models = options.models ?? ['fake-main', 'fake-small'];
  let lenientHandler: ((request: RecordedRequest) => string | ScriptedReplySpec) | undefined;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      errors.push(`fake server failure: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) sendJson(response, 500, errorBody('fake server failure', 'server_error'));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0]!;
    if (request.method === 'GET' && path === '/v1/models') {
      sendJson(response, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      return;
    }
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      errors.push(`unexpected ${request.method} ${path}`);
      sendJson(response, 404, errorBody(`no route ${request.method} ${path} on the fake OpenAI server`, 'invalid_request_error'));
      return;
    }
    const raw = await readBody(request);
    let body: ChatRequestBody;
    try {
      body = JSON.parse(raw) as ChatRequestBody;
    } catch {
      errors.push(`request body is not JSON: ${raw.slice(0, 200)}`);
      sendJson(response, 400, errorBody('request body is not JSON', 'invalid_request_error'));
      return;
    }
    const recorded: RecordedRequest = {
      index: requests.length,
      at: Date.now(),
      path,
      headers: { ...request.headers },
      body,
      model: body.model,
      messages: Array.isArray(body.messages) ? body.messages : [],
      stream: body.stream === true,
      response_format: body.response_format,
    };
    requests.push(recorded);

    const next = lenientHandler ?? script.shift();
    if (next === undefined) {
      const message = `unexpected chat completion request #${recorded.index + 1}: no scripted reply left`;
      errors.push(message);
      sendJson(response, 500, errorBody(message, 'server_error'));
      return;
    }
    let spec: ScriptedReplySpec;
    try {
      const resolved = typeof next === 'function' ? next(recorded) : next;
      spec = typeof resolved === 'string' ? { content: resolved } : resolved;
    } catch (error) {
      const message = `reply matcher for request #${recorded.index + 1} threw: ${error instanceof Error ? error.message : String(error)}`;
      errors.push(message);
      sendJson(response, 500, errorBody(message, 'server_error'));
      return;
    }
    await serve(spec, recorded, response);
  }

  async function serve(spec: ScriptedReplySpec, recorded: RecordedRequest, response: ServerResponse): Promise<void> {
    if (spec.hang) {
      // Answer nothing; the socket is released when the client aborts or close() runs.
      await new Promise<void>((resolve) => response.once('close', resolve));
      return;
    }
    if (spec.latencyMs) {
      const closed = await delay(spec.latencyMs, response);
      if (closed) return;
    }
    if (spec.rejectResponseFormat) {
      const type = recorded.response_format?.type;
      if (!type) {
        const message = `request #${recorded.index + 1} was scripted to reject response_format but sent none`;
        errors.push(message);
        sendJson(response, 500, errorBody(message, 'server_error'));
        return;
      }
      sendJson(response, 400, {
        error: {
          message: `Invalid parameter: 'response_format' of type '${type}' is not supported with this model.`,
          type: 'invalid_request_error',
          param: 'response_format',
          code: null,
        },
      });
      return;
    }
    if (spec.status !== undefined && spec.status >= 300) {
      const headers: Record<string, string> = {};
      if (spec.retryAfter !== undefined) headers['retry-after'] = String(spec.retryAfter);
      const type = spec.status === 429 ? 'rate_limit_error' : spec.status >= 500 ? 'server_error' : 'invalid_request_error';
      sendJson(response, spec.status, errorBody(spec.errorMessage ?? `scripted error ${spec.status}`, type), headers);
      return;
    }
    const content = typeof spec.content === 'string' ? spec.content : spec.content === undefined ? '' : JSON.stringify(spec.content);
    const usage = spec.usage === false ? undefined : (spec.usage ?? roughUsage(recorded, content));
    const model = recorded.model ?? 'fake-main';
    const id = `chatcmpl-fake-${recorded.index + 1}`;
    if (!recorded.stream) {
      if (spec.malformed) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"choices": [ this is not json');
        return;
      }
      sendJson(response, 200, {
        id,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
        ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
      JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
    const pieces = spec.streamChunks ?? splitIntoChunks(content);
    response.write(`data: ${chunk({ role: 'assistant', content: '' }, null)}\n\n`);
    for (const piece of pieces) {
      if (spec.chunkDelayMs) {
        const closed = await delay(spec.chunkDelayMs, response);
        if (closed) return;
      }
      response.write(`data: ${chunk({ content: piece }, null)}\n\n`);
    }
    if (spec.malformed) {
      response.end('data: {"choices": [ this is not json\n\n');
      return;
    }
    if (spec.truncateStream) {
      response.end();
      return;
    }
    response.write(`data: ${chunk({}, 'stop')}\n\n`);
    if (usage && recorded.body.stream_options?.include_usage) {
      const usageChunk = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } };
      response.write(`data: ${JSON.stringify(usageChunk)}\n\n`);
    }
    response.end('data: [DONE]\n\n');
  }

  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    errors,
    get connections() {
      return connections;
    },
    remaining: () => script.length,
    push: (...replies) => {
      script.push(...replies);
    },
    answerAll: (handler) => {
      lenientHandler = handler;
    },
    assertComplete: () => {
      const problems = [...errors];
      if (script.length > 0) problems.push(`${script.length} scripted repl${script.length === 1 ? 'y was' : 'ies were'} never requested`);
      if (problems.length > 0) throw new Error(`fake OpenAI server: ${problems.join('; ')}`);
    },
    close: () => (closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    })),
  };
}

function errorBody(message: string, type: string): Record<string, unknown> {
  return { error: { message, type, param: null, code: null } };
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

/** Waits `ms`; resolves true early if the client went away meanwhile. */
function delay(ms: number, response: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(false);
    }, ms);
    response.once('close', onClose);
  });
}

/** Splits text into pieces of a few characters (code points, so CJK stays whole). */
function splitIntoChunks(content: string): string[] {
  const characters = [...content];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += 4) pieces.push(characters.slice(start, start + 4).join(''));
  return pieces;
}

function roughUsage(recorded: RecordedRequest, content: string): { prompt_tokens: number; completion_tokens: number } {
  const promptCharacters = recorded.messages.reduce((total, message) => total + String(message.content ?? '').length, 0);
  return { prompt_tokens: Math.max(1, Math.ceil(promptCharacters / 4)), completion_tokens: Math.max(1, Math.ceil(content.length / 4)) };
}
