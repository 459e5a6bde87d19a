import { afterEach, describe, expect, it } from 'vitest';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { UserError } from '../errors.js';
import type { ResponseState, Stage } from '../events/index.js';
import type { StartedTurn, TurnRequest, TurnResult, TurnRunner } from '../turn/index.js';
import { silentLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import type { AgentCard, PublicAgentCard, Registry, RegistrySnapshot } from '../registry/types.js';
import type { StoredMessage, TranscriptReader } from '../store/types.js';
import { createApp, type AppOptions } from './app.js';
import { startServer, type RunningServer } from './server.js';
import { createStreamTracker } from './stream-tracker.js';
import { SUPERVISOR_DEFAULTS, toPublicCard } from '../registry/index.js';

// ---------------------------------------------------------------------------
// Test doubles for the seams the HTTP layer talks through.
// ---------------------------------------------------------------------------

interface RecordedTurn {
  request: TurnRequest;
  signal: AbortSignal;
  abortCount: number;
  emitted: number;
  finished: Promise<void>;
}

interface ScriptOptions {
  stages?: Stage[];
  delayMs?: number;
  /** `start` rejects with this. */
  rejectWith?: unknown;
  /** After the first event, wait until the signal is aborted, then emit `done`. */
  holdUntilAborted?: boolean;
  /** After the first event, never finish, even when aborted. */
  holdForever?: boolean;
  /** `done` rejects with this after the first event. */
  failWith?: Error;
  /** Never emit a `done` event (the result still resolves). */
  omitDone?: boolean;
  /** Emit the first event in the same tick `start` resolves. */
  emitFirstEagerly?: boolean;
}

/** A scripted runner: emits one event per stage with a delay, then `done`. Records every turn. */
function createScriptedRunner(script: ScriptOptions = {}): TurnRunner & { turns: RecordedTurn[] } {
  const turns: RecordedTurn[] = [];
  const stages = script.stages ?? ['intent_start', 'plan_done', 'final'];
  const delayMs = script.delayMs ?? 5;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let sessionCounter = 0;

  return {
    turns,
    draining: false,
    activeTurns: 0,
    async drain() {},
    async start(request, { signal, onEvent }): Promise<StartedTurn> {
      if (script.rejectWith !== undefined) throw script.rejectWith;
      const sessionId = request.sessionId ?? `generated-${++sessionCounter}`;
      let finish!: () => void;
      const recorded: RecordedTurn = { request, signal, abortCount: 0, emitted: 0, finished: new Promise((resolve) => (finish = resolve)) };
      signal.addEventListener('abort', () => recorded.abortCount++);
      turns.push(recorded);
      const events: ResponseState[] = [];
      let seq = 0;
      const emit = (stage: Stage, content: string) => {
        const event: ResponseState = {
          type: stage === 'done' ? 'done' : 'content',
          content,
          agent_id: stage === 'final' ? 'summarize' : 'supervisor',
          is_thinking: stage !== 'final' && stage !== 'done',
          session_id: sessionId,
          metadata: { stage, seq: ++seq },
        };
        events.push(event);
        recorded.emitted++;
        onEvent(event);
      };
      const run = async (): Promise<TurnResult> => {
        try {
          if (script.emitFirstEagerly) emit(stages[0]!, `step ${stages[0]}`);
          for (const [index, stage] of stages.entries()) {
            if (script.emitFirstEagerly && index === 0) continue;
            await sleep(delayMs);
            if (signal.aborted) break;
            emit(stage, `step ${stage}`);
            if (script.failWith) throw script.failWith;
            if (script.holdForever) await new Promise(() => {});
            if (script.holdUntilAborted) {
              await new Promise<void>((resolve) =>
                signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
              );
              break;
            }
          }
          if (!script.omitDone) emit('done', signal.aborted ? 'cancelled' : 'answer');
          return { sessionId, finalAnswer: 'answer', events };
        } finally {
          finish();
        }
      };
      const done = run();
      return { sessionId, done };
    },
  };
}

function createMemoryMessages(seed: Record<string, { owner: string; messages: StoredMessage[] }> = {}): TranscriptReader {
  const sessions = new Map(Object.entries(seed));
  return {
    async sessionAccess(userId, sessionId) {
      const owner = sessions.get(sessionId)?.owner;
      return owner === undefined ? 'none' : owner === userId ? 'owner' : 'other';
    },
    async listMessages(_userId, sessionId) {
      return (sessions.get(sessionId)?.messages ?? []).map((message) => ({ ...message }));
    },
  };
}

const hotelCard = {
  id: 'hotel_agent',
  name: '酒店服务',
  description: 'hotel search',
  enabled: true,
  examples: [],
  keywords: ['hotel'],
  dependsOn: [],
  endpoint: { url: 'http://127.0.0.1:1/invoke', protocol: 'http-json', timeoutMs: 1000, retries: 0, headers: { Authorization: 'Bearer secret' } },
  requiredKeys: [],
} satisfies AgentCard;

function createStaticRegistry(): Registry {
  const agents = [hotelCard, { ...hotelCard, id: 'weather_agent', enabled: false }];
  const snapshot = {
    version: 'abc123',
    loadedAt: '2026-01-01T00:00:00.000Z',
    sourcePath: '/tmp/agents_config.yaml',
    supervisor: SUPERVISOR_DEFAULTS,
    widgets: {},
    agents,
    byId: new Map(agents.map((card) => [card.id, card])),
    enabledAgents: agents.filter((card) => card.enabled),
  } satisfies RegistrySnapshot;
  return { current: () => snapshot, lastError: () => null, onReload: () => () => {}, close: async () => {} };
}


// ---------------------------------------------------------------------------
// Helpers: a server per test, an SSE reader.
// ---------------------------------------------------------------------------

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(overrides: Partial<AppOptions> = {}) {
  const turns = overrides.turns ?? createScriptedRunner();
  const options: AppOptions = {
    registry: createStaticRegistry(),
    messages: createMemoryMessages(),
    feed: { resumePoint: async () => ({ ok: false, reason: 'not_found' }), exhausted: async () => false, follow: async () => {}, cancel: async () => undefined },
    publicCard: toPublicCard,
    logger: silentLogger,
    metrics: createMetrics({ defaultMetrics: false }),
    streams: createStreamTracker(),
    ...overrides,
    turns,
  };
  const server = await startServer(createApp(options), { port: 0, host: '127.0.0.1', streams: options.streams });
  servers.push(server);
  return { url: server.url, server, options };
}

function postChat(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

async function readSse(response: Response) {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event), onComment: (comment) => comments.push(comment) });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    parser.feed(decoder.decode(chunk.value, { stream: true }));
  }
  return { events, comments, states: events.map((event) => JSON.parse(event.data) as ResponseState) };
}

// ---------------------------------------------------------------------------

describe('POST /v1/chat as SSE', () => {
  it('streams events in order as bare data frames (position in metadata.seq) and ends after done', async () => {
    const { url } = await serve();
    const response = await postChat(url, { query: '帮我订北京的酒店', user_id: 'u1', session_id: 's1' }, { 'x-trace-id': 'trace-abc' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-trace-id')).toBe('trace-abc');
    expect(response.headers.get('x-session-id')).toBe('s1');
    const { events, states } = await readSse(response);
    expect(states.map((state) => state.metadata.stage)).toEqual(['intent_start', 'plan_done', 'final', 'done']);
    expect(events.map((event) => event.id)).toEqual([undefined, undefined, undefined, undefined]);
    expect(states.map((state) => state.metadata.seq)).toEqual([1, 2, 3, 4]);
    expect(states.at(-1)!.type).toBe('done');
    expect(states.every((state) => state.session_id === 's1')).toBe(true);
  });

  it('passes the query, user, session and a generated trace id to the runner, and never aborts a finished turn', async () => {
    const turns = createScriptedRunner();
    const { url } = await serve({ turns });
    const response = await postChat(url, { query: 'hello', user_id: 'user@example.com', extra: 'ignored' }, { 'x-trace-id': 'bad id with spaces' });
    await readSse(response);
    await turns.turns[0]!.finished;
    const { request, signal } = turns.turns[0]!;
    expect(request).toMatchObject({ query: 'hello', userId: 'user@example.com' });
    expect(request.sessionId).toBeUndefined();
    expect(request.traceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-trace-id')).toBe(request.traceId);
    expect(signal.aborted).toBe(false);
  });

  it('delivers an event emitted in the same tick the turn started', async () => {
    const { url } = await serve({ turns: createScriptedRunner({ emitFirstEagerly: true }) });
    const { states } = await readSse(await postChat(url, { query: 'q', user_id: 'u1' }));
    expect(states.map((state) => state.metadata.stage)).toEqual(['intent_start', 'plan_done', 'final', 'done']);
  });

  it('sends heartbeat comments while a turn is quiet', async () => {
    const { url } = await serve({ heartbeatMs: 50, turns: createScriptedRunner({ delayMs: 200 }) });
    const { comments, states } = await readSse(await postChat(url, { query: 'q', user_id: 'u1' }));
    expect(comments.some((comment) => comment.trim() === 'ping')).toBe(true);
    expect(states.at(-1)!.type).toBe('done');
  });

  it('closes the stream with a done event when the turn fails mid-stream, without internals', async () => {
    const { url } = await serve({ turns: createScriptedRunner({ failWith: new Error('db password leaked') }) });
    const response = await postChat(url, { query: 'q', user_id: 'u1' });
    const { states } = await readSse(response);
    expect(states.map((state) => state.type)).toEqual(['content', 'done']);
    expect(JSON.stringify(states)).not.toContain('password');
  });

  it('adds a done event when the turn finishes without one', async () => {
    const { url } = await serve({ turns: createScriptedRunner({ omitDone: true }) });
    const { states } = await readSse(await postChat(url, { query: 'q', user_id: 'u1' }));
    expect(states.at(-1)).toMatchObject({ type: 'done', content: 'answer' });
    expect(states.at(-1)!.metadata.seq).toBe(4);
  });
});

describe('POST /v1/chat as JSON', () => {
  it('waits for the turn and returns session, answer and events', async () => {
    const { url } = await serve();
    const response = await postChat(url, { query: 'q', user_id: 'u1', session_id: 's9' }, { accept: 'application/json' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { session_id: string; final_answer: string; events: ResponseState[] };
    expect(body.session_id).toBe('s9');
    expect(body.final_answer).toBe('answer');
    expect(body.events.map((event) => event.metadata.stage)).toEqual(['intent_start', 'plan_done', 'final', 'done']);
  });

  it('streams when the client accepts anything', async () => {
    const { url } = await serve();
    const response = await postChat(url, { query: 'q', user_id: 'u1' }, { accept: '*/*' });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await readSse(response);
  });
});

describe('POST /v1/chat rejects bad input', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['missing query', { user_id: 'u1' }, 'query', /query is required/],
    ['missing user_id', { query: 'q' }, 'user_id', /user_id is required/],
    ['non-string user_id', { query: 'q', user_id: 42 }, 'user_id', /user_id must be a string/],
    ['non-string query', { query: ['q'], user_id: 'u1' }, 'query', /query must be a string/],
    ['empty query', { query: '', user_id: 'u1' }, 'query', /query must not be empty/],
    ['blank query', { query: '   ', user_id: 'u1' }, 'query', /query must not be empty/],
    ['too long query', { query: 'x'.repeat(101), user_id: 'u1' }, 'query', /longer than 100 characters/],
    ['bad session_id', { query: 'q', user_id: 'u1', session_id: 'a b' }, 'session_id', /session_id may only contain/],
    ['too long session_id', { query: 'q', user_id: 'u1', session_id: 's'.repeat(129) }, 'session_id', /at most 128/],
    ['bad user_id', { query: 'q', user_id: 'u/1' }, 'user_id', /user_id may only contain/],
    ['too long user_id', { query: 'q', user_id: 'u'.repeat(129) }, 'user_id', /at most 128/],
    ['array body', [{ query: 'q' }], 'body', /JSON object/],
    ['confirm not an array', { user_id: 'u1', confirm: 'plan_1_task_1' }, 'confirm', /confirm must be an array of task ids/],
    ['bad task id in reject', { user_id: 'u1', reject: ['ok', 'a b'] }, 'reject', /reject\[1\] must be a task id/],
    ['empty confirm and no query', { user_id: 'u1', confirm: [] }, 'query', /query is required/],
  ];
  it.each(cases)('%s → 400 naming the field', async (_name, body, field, message) => {
    const turns = createScriptedRunner();
    const { url } = await serve({ maxQueryChars: 100, turns });
    const response = await postChat(url, body);
    expect(response.status).toBe(400);
    const payload = (await response.json()) as { error: { code: string; message: string; details?: { field: string } } };
    expect(payload.error.code).toBe('BAD_REQUEST');
    expect(payload.error.message).toMatch(message);
    expect(payload.error.details?.field).toBe(field);
    expect(turns.turns).toHaveLength(0);
  });

  it('counts query length in characters, not bytes', async () => {
    const { url } = await serve({ maxQueryChars: 10 });
    const response = await postChat(url, { query: '北京的酒店北京的酒店', user_id: 'u1' }, { accept: 'application/json' });
    expect(response.status).toBe(200);
  });

  it('rejects invalid JSON with 400', async () => {
    const { url } = await serve();
    const response = await postChat(url, '{"query": "q", ');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^body is not valid JSON: /), details: { field: 'body' } } });
  });

  it('rejects a body over the limit with 413', async () => {
    const { url } = await serve({ bodyLimitBytes: 1024 });
    const response = await postChat(url, { query: 'x'.repeat(2000), user_id: 'u1' });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('rejects a non-JSON content type with 415 and a missing body with 400', async () => {
    const { url } = await serve();
    const text = await fetch(`${url}/v1/chat`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const empty = await fetch(`${url}/v1/chat`, { method: 'POST' });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(/body is required/);
  });
});

describe('POST /v1/chat runner refusals and failures', () => {
  it('propagates a 409 from start as a JSON error', async () => {
    const { url } = await serve({ turns: createScriptedRunner({ rejectWith: new UserError('TURN_IN_PROGRESS') }) });
    const response = await postChat(url, { query: 'q', user_id: 'u1', session_id: 's1' });
    expect(response.status).toBe(409);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('TURN_IN_PROGRESS');
  });

  it('answers 429 with retry-after', async () => {
    const limited = new UserError('RATE_LIMITED', 'slow down', { retryAfterSeconds: 7.2 });
    const { url } = await serve({ turns: createScriptedRunner({ rejectWith: limited }) });
    const response = await postChat(url, { query: 'q', user_id: 'u1' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('8');
    expect(await response.json()).toEqual({ error: { code: 'RATE_LIMITED', message: 'slow down' } });
  });

  it('turns a plain Error into a 500 without stack or internal message', async () => {
    const { url } = await serve({ turns: createScriptedRunner({ rejectWith: new Error('connect ECONNREFUSED secret-host:5432') }) });
    const response = await postChat(url, { query: 'q', user_id: 'u1' });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'INTERNAL', message: 'Internal error.' } });
    expect(text).not.toMatch(/secret-host|ECONNREFUSED|at .*\.ts/);
  });
});

describe('client disconnect and shutdown', () => {
  it('aborts the signal exactly once when the client leaves mid-stream', async () => {
    const turns = createScriptedRunner({ holdUntilAborted: true });
    const { url, options } = await serve({ turns });
    const client = new AbortController();
    const response = await postChat(url, { query: 'q', user_id: 'u1' }, {}, client.signal);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('intent_start');
    client.abort();
    await turns.turns[0]!.finished;
    const turn = turns.turns[0]!;
    expect(turn.signal.aborted).toBe(true);
    expect(turn.signal.reason).toBe('client_disconnected');
    expect(turn.abortCount).toBe(1);
    const gauge = await options.metrics.activeStreams.get();
    expect(gauge.values[0]?.value ?? 0).toBe(0);
  });

  it('close() aborts open streams, lets them send done, and waits for them', async () => {
    const turns = createScriptedRunner({ holdUntilAborted: true });
    const { url, server } = await serve({ turns });
    const response = await postChat(url, { query: 'q', user_id: 'u1' });
    const reading = readSse(response);
    while ((turns.turns[0]?.emitted ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    const { states } = await reading;
    expect(states.at(-1)).toMatchObject({ type: 'done', content: 'cancelled' });
    expect(turns.turns[0]!.signal.reason).toBe('server_shutdown');
    expect(turns.turns[0]!.abortCount).toBe(1);
  });

  it('close() ends a stream whose turn ignores the abort once the grace period is over', async () => {
    const turns = createScriptedRunner({ holdForever: true });
    const { url, server } = await serve({ turns, shutdownGraceMs: 50 });
    const response = await postChat(url, { query: 'q', user_id: 'u1' });
    const reading = readSse(response);
    while ((turns.turns[0]?.emitted ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    const { states } = await reading;
    expect(states.map((state) => state.metadata.stage)).toEqual(['intent_start']);
    expect(turns.turns[0]!.abortCount).toBe(1);
  });
});

describe('GET /v1/sessions/:session_id/messages', () => {
  const messages = createMemoryMessages({
    s1: { owner: 'alice', messages: [{ seq: 1, role: 'user', content: 'hi', created_at: '2026-01-01T00:00:00Z' }] },
  });

  it('returns the transcript to its owner', async () => {
    const { url } = await serve({ messages });
    const response = await fetch(`${url}/v1/sessions/s1/messages?user_id=alice`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      session_id: 's1',
      messages: [{ seq: 1, role: 'user', content: 'hi', created_at: '2026-01-01T00:00:00Z' }],
    });
  });

  it('answers 403 to another user, 404 for an unknown session, 400 without user_id', async () => {
    const { url } = await serve({ messages });
    const other = await fetch(`${url}/v1/sessions/s1/messages?user_id=bob`);
    expect(other.status).toBe(403);
    const unknown = await fetch(`${url}/v1/sessions/nope/messages?user_id=alice`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');
    const missing = await fetch(`${url}/v1/sessions/s1/messages`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe('user_id is required');
    const repeated = await fetch(`${url}/v1/sessions/s1/messages?user_id=alice&user_id=bob`);
    expect(repeated.status).toBe(400);
  });
});

describe('registry, probes, page and routing', () => {
  it('GET /v1/agents lists every public card with version and load time', async () => {
    const { url } = await serve();
    const body = (await (await fetch(`${url}/v1/agents`)).json()) as Record<string, unknown> & { agents: PublicAgentCard[] };
    expect(body.version).toBe('abc123');
    expect(body.loaded_at).toBe('2026-01-01T00:00:00.000Z');
    expect(body.last_error).toBeNull();
    expect(body.agents.map((agent) => [agent.id, agent.enabled])).toEqual([['hotel_agent', true], ['weather_agent', false]]);
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it('serves healthz, readyz and metrics', async () => {
    let ready = false;
    const { url } = await serve({ isReady: () => ready });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toContain('switchboard_http_requests_total{route="/readyz",method="GET",status="503"} 1');
    expect(text).toContain('switchboard_active_streams');
  });

  it('serves the chat page when given, else 404', async () => {
    const withPage = await serve({ chatPage: '<!doctype html><title>chat</title>' });
    const page = await fetch(`${withPage.url}/`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<title>chat</title>');
    const withoutPage = await serve();
    expect((await fetch(`${withoutPage.url}/`)).status).toBe(404);
  });

  it('answers unknown routes with 404 JSON and wrong methods with 405', async () => {
    const { url } = await serve();
    const unknown = await fetch(`${url}/v2/nothing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no route for GET /v2/nothing' } });
    const wrongMethod = await fetch(`${url}/v1/chat`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });
});

describe('API keys', () => {
  it('requires a bearer key on /v1 and /metrics and leaves probes open', async () => {
    const { url } = await serve({ apiKeys: ['key-one', 'key-two'] });
    const missing = await fetch(`${url}/v1/agents`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const malformed = await fetch(`${url}/v1/agents`, { headers: { authorization: 'key-one' } });
    expect(malformed.status).toBe(401);
    const wrong = await fetch(`${url}/v1/agents`, { headers: { authorization: 'Bearer key-three' } });
    expect(wrong.status).toBe(403);
    const right = await fetch(`${url}/v1/agents`, { headers: { authorization: 'Bearer key-two' } });
    expect(right.status).toBe(200);
    const chat = await postChat(url, { query: 'q', user_id: 'u1' });
    expect(chat.status).toBe(401);
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${url}${path}`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer key-three' } })).status).toBe(403);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer key-one' } })).status).toBe(200);
  });
});
