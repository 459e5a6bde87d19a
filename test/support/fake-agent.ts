/**
 * A scriptable fake sub-agent: a real HTTP server on 127.0.0.1 that records
 * every call (body, headers, whether the client went away) and answers each
 * one as told — JSON, SSE, an error status, a hang, garbage, an oversize body.
 *
 *   const agent = await startFakeAgent([statusReply(500), jsonReply({ output: { ok: true } })]);
 *
 * A list is a strict script: call N gets entry N, and a call past the end is
 * answered 500 and counted in `unexpectedCalls` (see `assertComplete`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { safeJsonParse } from '../../src/util/safe-json.js';
import type { AgentReply } from '../../src/agents/types.js';
import type { AgentCard, AgentProtocol } from '../../src/registry/types.js';

interface ReplyTiming {
  /** Wait this long before sending anything (headers included). */
  delayMs?: number;
}

/** How the fake answers one call. */
export type FakeReply =
  | (ReplyTiming & {
      kind: 'json';
      /** The whole body; when given, status/output/message/missingKeys are ignored. */
      body?: unknown;
      status?: AgentReply['status'];
      output?: Record<string, unknown>;
      message?: string;
      missingKeys?: string[];
      httpStatus?: number;
    })
  | (ReplyTiming & {
      kind: 'sse';
      progress?: string[];
      /** The `result` event's object (default `{ status: 'completed', output: {} }`). */
      result?: unknown;
      /** End the stream cleanly before the `result` event. */
      cutBeforeResult?: boolean;
      /** Pause before each event. */
      intervalMs?: number;
      /** Override the content-type (to test a non-event-stream answer). */
      contentType?: string;
      /** Keep the connection open after the `result` event until the client leaves. */
      holdOpen?: boolean;
    })
  | (ReplyTiming & { kind: 'status'; httpStatus: number; body?: string; contentType?: string })
  | (ReplyTiming & { kind: 'hang' })
  | (ReplyTiming & { kind: 'raw'; body: string; contentType?: string; httpStatus?: number })
  | (ReplyTiming & { kind: 'oversize'; bytes: number; declareLength?: boolean; contentType?: string })
  | (ReplyTiming & { kind: 'destroy' });

/** Decides the reply of each call; `callIndex` counts from 0. */
export type FakeBehaviourFunction = (body: unknown, callIndex: number, call: RecordedCall) => FakeReply | Promise<FakeReply>;

/** One reply for every call, a strict script, or a function. */
export type FakeBehaviour = FakeReply | readonly FakeReply[] | FakeBehaviourFunction;

/** What the fake saw of one request. */
export interface RecordedCall {
  readonly index: number;
  readonly method: string;
  readonly path: string;
  /** Lower-cased names, as Node delivers them. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  readonly rawBody: string;
  /** The client closed the connection before the reply was complete. */
  aborted: boolean;
  /** The reply was fully sent. */
  finished: boolean;
}

/** A running fake sub-agent. */
export interface FakeAgent {
  /** `http://127.0.0.1:<port>/invoke` */
  readonly url: string;
  readonly calls: RecordedCall[];
  /** Calls whose client went away before the reply was complete. */
  readonly abortedCount: number;
  /** Calls that arrived after a scripted list was used up. */
  readonly unexpectedCalls: number;
  /** TCP connections clients opened to the fake so far. */
  readonly connections: number;
  /** Resolves once `count` calls arrived; rejects after `timeoutMs`. */
  waitForCalls(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once `count` calls were aborted by the client; rejects after `timeoutMs`. */
  waitForAborts(count?: number, timeoutMs?: number): Promise<void>;
  /** Throws if scripted replies are left unused or calls came past the script. */
  assertComplete(): void;
  close(): Promise<void>;
}

/** A JSON reply (default `status: 'completed'`, `output: {}`). */
/** Fake agents by name, each answering `{ output: { ok: true }, message: "<name> answered" }`. */
export interface AnsweringAgents<Name extends string> {
  readonly agents: Record<Name, FakeAgent>;
  /** Each agent's address, for a registry. */
  readonly urls: Record<Name, string>;
  /** How many calls each agent has had so far. */
  calls(): Record<Name, number>;
  close(): Promise<void>;
}

/** Starts one answering fake agent per name (`AnsweringAgents`). */
export async function startAnsweringAgents<Name extends string>(names: readonly Name[]): Promise<AnsweringAgents<Name>> {
  const started = await Promise.all(names.map(async (name) => [name, await startFakeAgent(jsonReply({ output: { ok: true }, message: `${name} answered` }))] as const));
  const agents = Object.fromEntries(started) as Record<Name, FakeAgent>;
  return {
    agents,
    urls: Object.fromEntries(started.map(([name, agent]) => [name, agent.url])) as Record<Name, string>,
    calls: () => Object.fromEntries(started.map(([name, agent]) => [name, agent.calls.length])) as Record<Name, number>,
    close: async () => {
      await Promise.all(started.map(([, agent]) => agent.close()));
    },
  };
}

export function jsonReply(fields: Omit<Extract<FakeReply, { kind: 'json' }>, 'kind'> = {}): FakeReply {
  return { kind: 'json', ...fields };
}

/** An SSE reply: progress events then one result (unless cut). */
export function sseReply(fields: Omit<Extract<FakeReply, { kind: 'sse' }>, 'kind'> = {}): FakeReply {
  return { kind: 'sse', ...fields };
}

/** A bare HTTP status with an optional text body. */
export function statusReply(httpStatus: number, body?: string): FakeReply {
  return { kind: 'status', httpStatus, body };
}

/** Never answers; the request is released when the client aborts or the fake closes. */
export function hangReply(): FakeReply {
  return { kind: 'hang' };
}

/** Any text body (e.g. unparseable JSON). */
export function rawReply(body: string, contentType = 'application/json'): FakeReply {
  return { kind: 'raw', body, contentType };
}

/** A body of `bytes` bytes, streamed in chunks. */
export function oversizeReply(bytes: number, declareLength = false): FakeReply {
  return { kind: 'oversize', bytes, declareLength };
}

/** Starts a fake sub-agent on an ephemeral port of 127.0.0.1. */
export async function startFakeAgent(behaviour: FakeBehaviour = jsonReply()): Promise<FakeAgent> {
  const calls: RecordedCall[] = [];
  const waiters = new Set<() => void>();
  let unexpectedCalls = 0;
  let closing = false;
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const chooseReply = async (call: RecordedCall): Promise<FakeReply> => {
    if (typeof behaviour === 'function') return behaviour(call.body, call.index, call);
    if (isReplyList(behaviour)) {
      const scripted = behaviour[call.index];
      if (scripted) return scripted;
      unexpectedCalls++;
      return statusReply(500, `fake agent: no scripted reply for call ${call.index + 1} (script has ${behaviour.length})`);
    }
    return behaviour;
  };

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`fake agent error: ${(error as Error).message}`);
      } else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const rawBody = await readText(request);
    const parsed = safeJsonParse(rawBody);
    const call: RecordedCall = {
      index: calls.length,
      method: request.method ?? '',
      path: request.url ?? '',
      headers: flattenHeaders(request.headers),
      body: parsed.ok ? parsed.value : rawBody,
      rawBody,
      aborted: false,
      finished: false,
    };
    calls.push(call);
    response.on('close', () => {
      if (response.writableFinished) call.finished = true;
      else if (!closing) call.aborted = true;
      notify();
    });
    notify();
    const reply = await chooseReply(call);
    const gone = () => response.destroyed || response.writableEnded;
    if (reply.delayMs) await pause(reply.delayMs);
    if (gone()) return;
    await sendReply(reply, response, gone);
  }

  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const waitFor = (condition: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      if (condition()) return resolve();
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`fake agent: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      waiters.add(check);
    });

  return {
    url: `http://127.0.0.1:${port}/invoke`,
    calls,
    get abortedCount() {
      return calls.filter((call) => call.aborted).length;
    },
    get unexpectedCalls() {
      return unexpectedCalls;
    },
    get connections() {
      return connections;
    },
    waitForCalls: (count, timeoutMs = 5000) => waitFor(() => calls.length >= count, `${count} calls (saw ${calls.length})`, timeoutMs),
    waitForAborts: (count = 1, timeoutMs = 5000) =>
      waitFor(() => calls.filter((call) => call.aborted).length >= count, `${count} aborted calls`, timeoutMs),
    assertComplete() {
      if (unexpectedCalls > 0) throw new Error(`fake agent: ${unexpectedCalls} calls arrived past the end of the script`);
      if (isReplyList(behaviour) && calls.length < behaviour.length) {
        throw new Error(`fake agent: ${behaviour.length - calls.length} scripted replies were never used`);
      }
    },
    async close() {
      closing = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function sendReply(reply: FakeReply, response: ServerResponse, gone: () => boolean): Promise<void> {
  switch (reply.kind) {
    case 'json': {
      const body = reply.body ?? {
        status: reply.status ?? 'completed',
        output: reply.output ?? {},
        ...(reply.message !== undefined ? { message: reply.message } : {}),
        ...(reply.missingKeys !== undefined ? { missing_keys: reply.missingKeys } : {}),
      };
      response.writeHead(reply.httpStatus ?? 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
      return;
    }
    case 'status':
      response.writeHead(reply.httpStatus, { 'content-type': reply.contentType ?? 'text/plain' });
      response.end(reply.body ?? '');
      return;
    case 'raw':
      response.writeHead(reply.httpStatus ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
      response.end(reply.body);
      return;
    case 'hang':
      return;
    case 'destroy':
      response.socket?.destroy();
      return;
    case 'oversize':
      await sendOversize(reply, response, gone);
      return;
    case 'sse':
      await sendEvents(reply, response, gone);
      return;
  }
}

async function sendEvents(reply: Extract<FakeReply, { kind: 'sse' }>, response: ServerResponse, gone: () => boolean): Promise<void> {
  response.writeHead(200, {
    'content-type': reply.contentType ?? 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();
  for (const content of reply.progress ?? []) {
    if (reply.intervalMs) await pause(reply.intervalMs);
    if (gone()) return;
    response.write(`event: progress\ndata: ${JSON.stringify({ content })}\n\n`);
  }
  if (reply.cutBeforeResult) {
    response.end();
    return;
  }
  if (reply.intervalMs) await pause(reply.intervalMs);
  if (gone()) return;
  const result = reply.result ?? { status: 'completed', output: {} };
  response.write(`event: result\ndata: ${JSON.stringify(result)}\n\n`);
  if (!reply.holdOpen) response.end();
}

async function sendOversize(reply: Extract<FakeReply, { kind: 'oversize' }>, response: ServerResponse, gone: () => boolean): Promise<void> {
  const headers: Record<string, string | number> = { 'content-type': reply.contentType ?? 'application/json' };
  if (reply.declareLength) headers['content-length'] = reply.bytes;
  response.writeHead(200, headers);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let remaining = reply.bytes;
  while (remaining > 0 && !gone()) {
    const piece = remaining >= chunk.length ? chunk : chunk.subarray(0, remaining);
    remaining -= piece.length;
    if (!response.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }
  if (!gone()) response.end();
}

function isReplyList(behaviour: FakeBehaviour): behaviour is readonly FakeReply[] {
  return Array.isArray(behaviour);
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function readText(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What `fakeAgentCard` needs; everything but `url` has a test-friendly default. */
export interface FakeAgentCardOptions {
  url: string;
  id?: string;
  protocol?: AgentProtocol;
  timeoutMs?: number;
  retries?: number;
  headers?: Record<string, string>;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/**
 * A hand-built capability card pointing at a fake agent, schemas compiled with
 * ajv, so client and scenario tests need no registry file.
 */
export function fakeAgentCard(options: FakeAgentCardOptions): AgentCard {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormatsModule.default(ajv);
  return {
    id: options.id ?? 'fake_agent',
    name: 'Fake agent',
    description: 'A scripted sub-agent for tests',
    enabled: true,
    examples: [],
    keywords: [],
    dependsOn: [],
    endpoint: {
      url: options.url,
      protocol: options.protocol ?? 'http-json',
      timeoutMs: options.timeoutMs ?? 5000,
      retries: options.retries ?? 0,
      headers: options.headers ?? {},
    },
    requiredKeys: [],
    inputSchema: options.inputSchema,
    outputSchema: options.outputSchema,
    validateInput: options.inputSchema ? ajv.compile(options.inputSchema) : undefined,
    validateOutput: options.outputSchema ? ajv.compile(options.outputSchema) : undefined,
  };
}
