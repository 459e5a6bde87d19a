import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fakeAgentCard,
  hangReply,
  jsonReply,
  oversizeReply,
  rawReply,
  sseReply,
  startFakeAgent,
  statusReply,
  type FakeAgent,
  type FakeBehaviour,
} from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import type { AgentRequestBody } from './types.js';

const body: AgentRequestBody = {
  task_id: 'plan_1_task_0',
  message: '帮我订北京的酒店',
  inputs: { city: '北京', check_in_date: '2026-12-01' },
  user_id: 'u1',
  thread_id: 's1',
  trace_id: 'trace-abc',
  upstream: {},
};

const hotelOutputSchema = {
  type: 'object',
  required: ['hotels'],
  properties: {
    hotels: {
      type: 'array',
      items: { type: 'object', required: ['name', 'price'], properties: { name: { type: 'string' }, price: { type: 'number' } } },
    },
  },
};

const client = createAgentClient({ retryBaseDelayMs: 1 });

describe('createAgentClient', () => {
  let agent: FakeAgent | undefined;
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });
  const start = async (behaviour: FakeBehaviour) => {
    agent = await startFakeAgent(behaviour);
    return agent;
  };

  it('returns a completed http-json reply', async () => {
    const fake = await start(jsonReply({ output: { hotels: [{ name: 'A', price: 300 }] }, message: '已找到' }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, outputSchema: hotelOutputSchema }), body);
    expect(outcome).toMatchObject({ ok: true, attempts: 1, reply: { status: 'completed', message: '已找到' } });
    expect(fake.calls[0]!.body).toEqual(body);
  });

  it('sends the card headers, content-type, x-request-id and x-trace-id', async () => {
    const fake = await start(jsonReply());
    const card = fakeAgentCard({ url: fake.url, headers: { Authorization: 'Bearer secret-token', 'X-Request-Id': 'from-card' } });
    await client.call(card, body, { requestId: 'req-42' });
    const headers = fake.calls[0]!.headers;
    expect(headers.authorization).toBe('Bearer secret-token');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-request-id']).toBe('req-42');
    expect(headers['x-trace-id']).toBe('trace-abc');
  });

  it('generates an x-request-id when none is given', async () => {
    const fake = await start(jsonReply());
    await client.call(fakeAgentCard({ url: fake.url }), body);
    expect(fake.calls[0]!.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('relays SSE progress events and returns the result', async () => {
    const fake = await start(
      sseReply({ progress: ['正在查询北京的天气…', '正在整理预报…'], result: { status: 'completed', output: { city: '北京' } } }),
    );
    const progress: string[] = [];
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse' }), body, {
      onProgress: (content) => progress.push(content),
    });
    expect(outcome).toMatchObject({ ok: true, reply: { status: 'completed', output: { city: '北京' } } });
    expect(progress).toEqual(['正在查询北京的天气…', '正在整理预报…']);
    expect(fake.calls[0]!.headers.accept).toBe('text/event-stream');
  });

  it('returns at the result event even when the stream stays open', async () => {
    const fake = await start(sseReply({ result: { status: 'completed', output: { a: 1 } }, holdOpen: true }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse', timeoutMs: 5000 }), body);
    expect(outcome).toMatchObject({ ok: true, reply: { output: { a: 1 } } });
  });

  it('retries a 500 with the same task_id and succeeds', async () => {
    const fake = await start([statusReply(500, 'boom'), jsonReply({ output: { done: true } })]);
    const outcome = await client.call(fakeAgentCard({ url: fake.url, retries: 1 }), body);
    expect(outcome).toMatchObject({ ok: true, attempts: 2, reply: { output: { done: true } } });
    expect(fake.calls.map((call) => (call.body as AgentRequestBody).task_id)).toEqual([body.task_id, body.task_id]);
    fake.assertComplete();
  });

  it('fails with the status code once retries are exhausted', async () => {
    const fake = await start([statusReply(503), statusReply(502), statusReply(500)]);
    const outcome = await client.call(fakeAgentCard({ url: fake.url, retries: 2 }), body);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe('http_status');
    expect(outcome.attempts).toBe(3);
    expect(outcome.reason).toMatch(/HTTP 500/);
    expect(outcome.reason).toMatch(/after 3 attempts/);
    fake.assertComplete();
  });

  it('does not retry a 4xx', async () => {
    const fake = await start(statusReply(404, 'no such route'));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, retries: 3 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'http_status', attempts: 1 });
    expect(fake.calls).toHaveLength(1);
  });

  it('times out a hanging agent, retries, and the agent sees each abort', async () => {
    const fake = await start(hangReply());
    const outcome = await client.call(fakeAgentCard({ url: fake.url, timeoutMs: 150, retries: 1 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'timeout', attempts: 2 });
    if (!outcome.ok) expect(outcome.reason).toMatch(/within 150 ms/);
    await fake.waitForAborts(2);
    expect(fake.abortedCount).toBe(2);
  });

  it('stops at once without retrying when the caller aborts', async () => {
    const fake = await start(hangReply());
    const controller = new AbortController();
    const pending = client.call(fakeAgentCard({ url: fake.url, timeoutMs: 5000, retries: 3 }), body, { signal: controller.signal });
    await fake.waitForCalls(1);
    controller.abort();
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, code: 'aborted', attempts: 1 });
    await fake.waitForAborts(1);
    expect(fake.calls).toHaveLength(1);
  });

  it('stops at once when the caller aborts while the client waits to retry', async () => {
    const fake = await start([statusReply(503), statusReply(503)]);
    const slowRetries = createAgentClient({ retryBaseDelayMs: 4000 });
    const controller = new AbortController();
    const started = performance.now();
    const pending = slowRetries.call(fakeAgentCard({ url: fake.url, retries: 1 }), body, { signal: controller.signal });
    await fake.waitForCalls(1);
    setTimeout(() => controller.abort(), 50);
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, code: 'aborted', attempts: 1 });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(fake.calls).toHaveLength(1);
  });

  it('does not call at all when the signal is already aborted', async () => {
    const fake = await start(jsonReply());
    const outcome = await client.call(fakeAgentCard({ url: fake.url }), body, { signal: AbortSignal.abort() });
    expect(outcome).toMatchObject({ ok: false, code: 'aborted', attempts: 0 });
    expect(fake.calls).toHaveLength(0);
  });

  it('reports a refused connection as connect_error after retrying', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/invoke`;
    const outcome = await client.call(fakeAgentCard({ url, retries: 1 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'connect_error', attempts: 2 });
    if (!outcome.ok) expect(outcome.reason).toMatch(/ECONNREFUSED/);
  });

  it('rejects an unparseable body without retrying', async () => {
    const fake = await start(rawReply('{"status": "completed", '));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, retries: 2 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'bad_body', attempts: 1 });
    if (!outcome.ok) expect(outcome.reason).toMatch(/not JSON/);
  });

  it('rejects a reply whose status is not in the envelope enum', async () => {
    const fake = await start(jsonReply({ body: { status: 'done', output: {} } }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'bad_body' });
    if (!outcome.ok) expect(outcome.reason).toMatch(/\/status must be one of "completed", "failed", "input_required" \(got "done"\)/);
  });

  it('rejects output that violates the output_schema, naming the path', async () => {
    const fake = await start(jsonReply({ output: { hotels: [{ name: 'A', price: 'cheap' }] } }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, outputSchema: hotelOutputSchema }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'output_schema' });
    if (!outcome.ok) expect(outcome.reason).toContain('/hotels/0/price must be number');
  });

  it('rejects a completed reply without output when the card has an output_schema', async () => {
    const fake = await start(jsonReply({ body: { status: 'completed' } }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, outputSchema: hotelOutputSchema }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'output_schema' });
  });

  it('maps status failed to agent_failed with the agent message', async () => {
    const fake = await start(jsonReply({ status: 'failed', message: '该城市暂无可订酒店' }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, retries: 2, outputSchema: hotelOutputSchema }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'agent_failed', reason: '该城市暂无可订酒店', attempts: 1 });
  });

  it('passes input_required through as ok', async () => {
    const fake = await start(jsonReply({ body: { status: 'input_required', missing_keys: ['city'], message: '请问入住哪个城市？' } }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, outputSchema: hotelOutputSchema }), body);
    expect(outcome).toMatchObject({ ok: true, reply: { status: 'input_required', missing_keys: ['city'] } });
  });

  it('fails an SSE stream that ends before the result event', async () => {
    const fake = await start(sseReply({ progress: ['working'], cutBeforeResult: true }));
    const progress: string[] = [];
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse', retries: 1 }), body, {
      onProgress: (content) => progress.push(content),
    });
    expect(outcome).toMatchObject({ ok: false, code: 'stream_incomplete', attempts: 1 });
    expect(progress).toEqual(['working']);
  });

  it('rejects an SSE agent that answers with another content-type', async () => {
    const fake = await start(jsonReply());
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse' }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'bad_body' });
    if (!outcome.ok) expect(outcome.reason).toMatch(/application\/json.*instead of text\/event-stream/);
  });

  it('rejects an SSE result that is not a valid reply', async () => {
    const fake = await start(sseReply({ result: 'not an object' }));
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse' }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'bad_body' });
  });

  it('stops reading a streamed body past the size cap', async () => {
    const fake = await start(oversizeReply(5_000_000));
    const small = createAgentClient({ maxResponseBytes: 100_000 });
    const outcome = await small.call(fakeAgentCard({ url: fake.url, retries: 1 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'too_large', attempts: 1 });
    if (!outcome.ok) expect(outcome.reason).toMatch(/100000-byte limit/);
    await fake.waitForAborts(1);
  });

  it('refuses a declared content-length past the size cap', async () => {
    const fake = await start(oversizeReply(200_000, true));
    const small = createAgentClient({ maxResponseBytes: 100_000 });
    const outcome = await small.call(fakeAgentCard({ url: fake.url }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'too_large' });
  });

  it('caps a whole event stream at the stream cap', async () => {
    const fake = await start(sseReply({ progress: Array.from({ length: 50 }, () => 'x'.repeat(1000)) }));
    const small = createAgentClient({ maxResponseBytes: 10_000, maxStreamBytes: 20_000 });
    const outcome = await small.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse' }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'too_large' });
    if (!outcome.ok) expect(outcome.reason).toMatch(/20000-byte limit/);
  });

  it('caps a single event of a stream at the reply cap', async () => {
    const fake = await start(sseReply({ progress: ['x'.repeat(50_000)] }));
    const small = createAgentClient({ maxResponseBytes: 10_000 });
    const outcome = await small.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse' }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'too_large' });
    if (!outcome.ok) expect(outcome.reason).toMatch(/one event .*10000-byte limit/);
  });

  it('reads megabytes of progress under the stream cap and still gets the result', async () => {
    const chunk = 'y'.repeat(10_000);
    const fake = await start(sseReply({ progress: Array.from({ length: 300 }, () => chunk), result: { status: 'completed', output: { done: true } } }));
    let relayed = 0;
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse' }), body, { onProgress: () => relayed++ });
    expect(outcome).toMatchObject({ ok: true, reply: { status: 'completed', output: { done: true } } });
    expect(relayed).toBe(300);
  });

  it('cuts an event stream that runs past the timeout, however steadily it sends progress', async () => {
    const fake = await start(sseReply({ progress: Array.from({ length: 200 }, (_, index) => `tick ${index}`), intervalMs: 20 }));
    const progress: string[] = [];
    const started = Date.now();
    const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'http-sse', timeoutMs: 300, retries: 0 }), body, {
      onProgress: (content) => progress.push(content),
    });
    expect(outcome).toMatchObject({ ok: false, code: 'timeout', attempts: 1 });
    expect(Date.now() - started).toBeLessThan(2000);
    // Progress flowed until the cut: it does not extend the stream's time.
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.length).toBeLessThan(200);
    await fake.waitForAborts(1);
  });

  it('fails a connection dropped without an answer as connect_error', async () => {
    const fake = await start({ kind: 'destroy' });
    const outcome = await client.call(fakeAgentCard({ url: fake.url, retries: 1 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'connect_error', attempts: 2 });
  });

  it('reports a protocol with no adapter', async () => {
    const card = fakeAgentCard({ url: 'http://127.0.0.1:1/invoke' });
    const outcome = await client.call({ ...card, endpoint: { ...card.endpoint, protocol: 'grpc' as never } }, body);
    expect(outcome).toMatchObject({ ok: false, code: 'unsupported_protocol', attempts: 0 });
  });

  it('never puts header values in a reason', async () => {
    const card = fakeAgentCard({ url: 'http://127.0.0.1:1/invoke', headers: { Authorization: 'Bearer top\nsecret' } });
    const outcome = await client.call(card, body);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.reason).not.toContain('top');
  });
});

describe('createAgentClient with a handed-in fetch', () => {
  it('parses SSE events split across chunks at any byte', async () => {
    const stream =
      'event: progress\ndata: {"content":"第一步"}\n\n: comment\n\nevent: progress\ndata: {"content":"第二步"}\n\n' +
      'event: result\ndata: {"status":"completed","output":{"ok":true}}\n\n';
    const bytes = new TextEncoder().encode(stream);
    const fetchFunction: typeof fetch = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (let index = 0; index < bytes.length; index += 3) controller.enqueue(bytes.subarray(index, index + 3));
            controller.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const progress: string[] = [];
    const outcome = await createAgentClient({ fetch: fetchFunction }).call(
      fakeAgentCard({ url: 'http://agent.test/invoke', protocol: 'http-sse' }),
      body,
      { onProgress: (content) => progress.push(content) },
    );
    expect(outcome).toMatchObject({ ok: true, reply: { output: { ok: true } } });
    expect(progress).toEqual(['第一步', '第二步']);
  });

  it('treats a result event without its closing blank line as missing', async () => {
    const fetchFunction: typeof fetch = async () =>
      new Response('event: result\ndata: {"status":"completed"}\n', { headers: { 'content-type': 'text/event-stream' } });
    const outcome = await createAgentClient({ fetch: fetchFunction }).call(
      fakeAgentCard({ url: 'http://agent.test/invoke', protocol: 'http-sse' }),
      body,
    );
    expect(outcome).toMatchObject({ ok: false, code: 'stream_incomplete' });
  });

  it('contains a throwing progress listener', async () => {
    const fetchFunction: typeof fetch = async () =>
      new Response('event: progress\ndata: {"content":"a"}\n\nevent: result\ndata: {"status":"completed"}\n\n', {
        headers: { 'content-type': 'text/event-stream' },
      });
    const outcome = await createAgentClient({ fetch: fetchFunction }).call(
      fakeAgentCard({ url: 'http://agent.test/invoke', protocol: 'http-sse' }),
      body,
      {
        onProgress: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect(outcome.ok).toBe(true);
  });
});

/** A port that was free a moment ago, so nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
