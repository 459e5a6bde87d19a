/**
 * Requests an outside client really sends, on a registry written here (a
 * weather agent and an order agent on fake sub-agents): bodies without a
 * content type, with another one or empty, `Accept: *\/*` on the AG-UI
 * stream, and a resume whose `Last-Event-ID` names an earlier turn of the
 * session. Each answer is the contract's: a JSON error naming what is wrong
 * (or the JSON-RPC error on `/a2a`), a content type that says what the body
 * is, and a resume that hands over what came after the id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParser } from 'eventsource-parser';
import { EventType } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE } from '@ag-ui/encoder';
import { runHttpRequest, transformHttpEventStream } from '@ag-ui/client';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let weather: FakeAgent;
let orders: FakeAgent;
let ticker: FakeAgent;
let board: TestSwitchboard;

const registry = (weatherUrl: string, ordersUrl: string, tickerUrl: string) => `version: 1
supervisor:
  default_timeout_ms: 3000
agents:
  - id: forecast
    name: { zh: 天气预报, en: Forecast }
    description: { zh: 查询城市天气, en: Weather for a city }
    examples: [北京明天天气怎么样, "what's the weather in Shanghai"]
    keywords: [天气, weather]
    endpoint: { url: ${weatherUrl}, protocol: http-json, timeout_ms: 3000 }
    required_semantic_keys:
      - key: city
        description: { zh: 城市, en: city }
        extract: { enum: [北京, 上海, Beijing, Shanghai] }
  - id: parcels
    name: { zh: 订单查询, en: Order lookup }
    description: { zh: 查询订单状态, en: Look up an order }
    examples: [查一下我的订单 A1001, where is my order A1001]
    keywords: [订单, order]
    endpoint: { url: ${ordersUrl}, protocol: http-json, timeout_ms: 3000 }
  - id: ticker
    name: { zh: 股票行情, en: Stock ticker }
    description: { zh: 股票报价, en: Stock quotes }
    examples: [stock ticker for ACME, 股票行情]
    keywords: [ticker, 股票]
    endpoint: { url: ${tickerUrl}, protocol: http-sse, timeout_ms: 3000 }
`;

beforeAll(async () => {
  weather = await startFakeAgent((body) => jsonReply({ output: { sky: 'clear' }, message: `Clear in ${(body as { inputs?: { city?: string } }).inputs?.city}` }));
  orders = await startFakeAgent(jsonReply({ output: { state: 'shipped' }, message: 'Shipped' }));
  // Progress lines that end in letters or digits (a tail the guard must wait on), then the result.
  ticker = await startFakeAgent(sseReply({ progress: ['hello', 'world', 'step 199'], result: { status: 'completed', output: { price: 42 }, message: 'ACME at 42' } }));
  board = await startTestSwitchboard({ registryYaml: registry(weather.url, orders.url, ticker.url) });
});

afterAll(async () => {
  await board.close();
  await weather.close();
  await orders.close();
  await ticker.close();
});

async function post(path: string, body: string | undefined, headers: Record<string, string>): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${board.url}${path}`, { method: 'POST', headers, body });
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

const rpcBody = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { id: 'no-such-task' } });

describe('POST /a2a with an odd body is answered in JSON-RPC, never a 500', () => {
  it('a non-JSON content type gets a JSON-RPC error naming the content type', async () => {
    const { status, type, text } = await post('/a2a', 'hello', { 'content-type': 'text/plain' });
    expect(status).toBe(200);
    expect(type).toMatch(/application\/json/);
    const body = JSON.parse(text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null });
    expect(body.error.message).toMatch(/text\/plain/);
  });

  it('an empty body is a parse error (-32700, id null)', async () => {
    for (const headers of [{ 'content-type': 'application/json' }, {} as Record<string, string>]) {
      const { status, text } = await post('/a2a', undefined, headers);
      expect(status, JSON.stringify(headers)).toBe(200);
      expect(JSON.parse(text), JSON.stringify(headers)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      expect((JSON.parse(text) as { error: { message: string } }).error.message).toMatch(/empty/);
    }
  });

  it('a send whose message has no parts is invalid params (-32602) naming params.message.parts, not a failed task', async () => {
    for (const [method, version, message] of [
      ['message/send', '', { kind: 'message', messageId: 'np-1', role: 'user', parts: [] }],
      ['SendMessage', '1.0', { messageId: 'np-2', role: 'ROLE_USER', parts: [] }],
    ] as const) {
      const { status, text } = await post('/a2a', JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { message } }), { 'content-type': 'application/json', ...(version ? { 'A2A-Version': version } : {}) });
      expect(status, method).toBe(200);
      const body = JSON.parse(text) as { id: unknown; error?: { code: number; message: string } };
      expect(body, method).toMatchObject({ id: 9, error: { code: -32602 } });
      expect(body.error!.message, method).toMatch(/params\.message\.parts/);
    }
  });

  it('a JSON-RPC request sent without a content type is read as JSON', async () => {
    const response = await fetch(`${board.url}/a2a`, { method: 'POST', body: new Blob([rpcBody]) });
    expect(response.headers.get('content-type') ?? '').not.toMatch(/text\/plain/);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
  });
});

const runInput = (threadId: string, text: string) =>
  JSON.stringify({ threadId, runId: `run-${threadId}`, messages: [{ id: 'm1', role: 'user', content: text }], tools: [], context: [], state: {}, forwardedProps: { user_id: 'agui-user' } });

describe('POST /v1/agui: the content type says what the body is', () => {
  it('Accept */* (or none) gets text/event-stream frames', async () => {
    for (const accept of ['*/*', undefined]) {
      const { status, type, text } = await post('/v1/agui', runInput(`any-${accept ? 'star' : 'none'}`, '北京天气'), { 'content-type': 'application/json', ...(accept ? { accept } : {}) });
      expect(status).toBe(200);
      expect(type, String(accept)).toMatch(/^text\/event-stream/);
      expect(text.startsWith('data: {"type":"RUN_STARTED"')).toBe(true);
    }
  });

  it('a client that prefers the protobuf media type gets protobuf frames the AG-UI client decodes', async () => {
    let contentType = '';
    const types: string[] = await new Promise((resolve, reject) => {
      const seen: string[] = [];
      const request = () =>
        fetch(`${board.url}/v1/agui`, { method: 'POST', headers: { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE }, body: runInput('proto-1', '上海天气') }).then((response) => {
          contentType = response.headers.get('content-type') ?? '';
          return response;
        });
      // What HttpAgent does with a response: pick the parser by its content type.
      transformHttpEventStream(runHttpRequest(request)).subscribe({ next: (event) => seen.push(event.type), error: reject, complete: () => resolve(seen) });
    });
    expect(contentType).toBe(AGUI_MEDIA_TYPE);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types).toContain(EventType.TEXT_MESSAGE_CONTENT);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
  });

  it('a body that is not JSON, or none, gets the JSON error /v1/chat gives (415 / 400 naming the body)', async () => {
    const plain = await post('/v1/agui', 'hello', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.text)).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(plain.text).toMatch(/text\/plain/);
    const none = await post('/v1/agui', undefined, { 'content-type': 'application/json' });
    expect(none.status).toBe(400);
    expect(JSON.parse(none.text)).toMatchObject({ error: { code: 'BAD_REQUEST', details: { field: 'body' } } });
    expect(none.text).toMatch(/RunAgentInput/);
  });
});

describe('a body that does not parse names the body', () => {
  it('/v1/chat and /v1/agui answer 400 with details.field "body"', async () => {
    for (const path of ['/v1/chat', '/v1/agui']) {
      const { status, text } = await post(path, '{"query": "x",', { 'content-type': 'application/json' });
      expect(status, path).toBe(400);
      expect(JSON.parse(text), path).toMatchObject({ error: { code: 'BAD_REQUEST', details: { field: 'body' } } });
    }
  });
});

interface FramedEvent {
  id: string;
  data: string;
}

async function resume(sessionId: string, lastEventId: string): Promise<{ status: number; events: FramedEvent[] }> {
  const response = await fetch(`${board.url}/v1/sessions/${sessionId}/stream?user_id=resumer`, { headers: { 'last-event-id': lastEventId } });
  const events: FramedEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ id: event.id ?? '', data: event.data }) });
  parser.feed(await response.text());
  return { status: response.status, events };
}

describe('resume with a Last-Event-ID of an earlier turn', () => {
  it('hands over the later turns of the session; 204 only once the id is at the last turn\'s done', async () => {
    const first = await board.chat('北京天气', { userId: 'resumer', sessionId: 'two-turns' });
    const second = await board.chat('上海天气', { userId: 'resumer', sessionId: 'two-turns' });
    const firstDone = `${first.at(-1)!.metadata!.turn_id}:${first.at(-1)!.metadata!.seq}`;
    const secondDone = `${second.at(-1)!.metadata!.turn_id}:${second.at(-1)!.metadata!.seq}`;

    const afterFirst = await resume('two-turns', firstDone);
    expect(afterFirst.status).toBe(200);
    expect(afterFirst.events.map((event) => event.id)).toEqual(second.map((event) => `${event.metadata!.turn_id}:${event.metadata!.seq}`));
    expect(JSON.parse(afterFirst.events.at(-1)!.data)).toMatchObject({ type: 'done' });

    const midFirst = await resume('two-turns', `${first[0]!.metadata!.turn_id}:${first.length - 2}`);
    expect(midFirst.events.map((event) => event.id)).toEqual([...first.slice(-2), ...second].map((event) => `${event.metadata!.turn_id}:${event.metadata!.seq}`));

    expect((await resume('two-turns', secondDone)).status).toBe(204);
  });
});

describe('an http-sse agent\'s progress', () => {
  it('reaches the client as agent_stream events, each as it was sent, and never inside the result\'s agent_done text', async () => {
    const events = await board.chat('stock ticker for ACME', { userId: 'progress-user' });
    const stream = events.filter((event) => event.metadata?.stage === 'agent_stream').map((event) => event.content);
    const done = events.find((event) => event.metadata?.stage === 'agent_done');
    expect(stream).toEqual(['hello', 'world', 'step 199']);
    expect(done?.content).toBe('ACME at 42');
  });
});
