import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentServer, createEnvelopeValidator, type AgentRequestBody } from 'switchboard/agent-kit';
import { createAgentClient } from '../agents/agent-client.js';
import { runConformance, targetFromUrl } from '../conformance/index.js';
import { fakeAgentCard, jsonReply, startFakeAgent } from '../../test/support/fake-agent.js';

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

async function start(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoke`;
}

function body(taskId: string, inputs: Record<string, unknown> = {}): AgentRequestBody {
  return { task_id: taskId, message: 'book', inputs, user_id: 'u1', thread_id: 's1', trace_id: 't1', upstream: {} };
}

async function post(url: string, payload: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof payload === 'string' ? payload : JSON.stringify(payload) });
}

describe('createAgentServer', () => {
  it('answers http-json, runs a retried task once, and rejects bad requests by name', async () => {
    let calls = 0;
    const url = await start(
      createAgentServer({
        handle: (request) => {
          calls++;
          if (!request.inputs.city) return { status: 'input_required', missing_keys: ['city'], message: 'which city?' };
          return { status: 'completed', output: { booking_id: `B-${calls}` }, message: 'booked' };
        },
      }),
    );
    const first = await (await post(url, body('task_1', { city: '北京' }))).json();
    const retry = await (await post(url, body('task_1', { city: '北京' }))).json();
    expect(first).toEqual({ status: 'completed', output: { booking_id: 'B-1' }, message: 'booked' });
    expect(retry).toEqual(first);
    expect(calls).toBe(1);

    const missing = await post(url, { ...body('task_2'), task_id: undefined });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/task_id/);
    expect((await post(url, '{oops')).status).toBe(400);
    expect((await post(url, body('x'.repeat(10), { blob: 'x'.repeat(300_000) }))).status).toBe(413);
    expect((await fetch(url.replace('/invoke', '/healthz'))).status).toBe(200);
  });

  it('turns a throwing or malformed handler into a failed reply', async () => {
    const url = await start(
      createAgentServer({
        handle: (request) => {
          if (request.task_id === 'boom') throw new Error('database down');
          return { status: 'done' } as never;
        },
      }),
    );
    expect(await (await post(url, body('boom'))).json()).toEqual({ status: 'failed', message: 'internal error: database down' });
    const invalid = (await (await post(url, body('bad'))).json()) as { status: string; message: string };
    expect(invalid.status).toBe('failed');
    expect(invalid.message).toMatch(/invalid reply/);
  });

  it('streams progress and one result over http-sse, read by the real agent client', async () => {
    const url = await start(
      createAgentServer({
        protocol: 'http-sse',
        async handle(request, context) {
          await context.progress('looking…');
          await context.progress(`trace ${String(context.headers['x-trace-id'])}`);
          return { status: 'completed', output: { city: request.inputs.city } };
        },
      }),
    );
    const progress: string[] = [];
    const outcome = await createAgentClient().call(fakeAgentCard({ url, protocol: 'http-sse' }), { ...body('task_s', { city: '上海' }), trace_id: 'trace-9' }, {
      onProgress: (content) => progress.push(content),
    });
    expect(outcome).toMatchObject({ ok: true, reply: { status: 'completed', output: { city: '上海' } } });
    expect(progress).toEqual(['looking…', 'trace trace-9']);
  });

  it('passes check-agent over both protocols', async () => {
    for (const protocol of ['http-json', 'http-sse'] as const) {
      const url = await start(createAgentServer({ protocol, handle: () => ({ status: 'completed', output: { ok: true } }) }));
      const report = await runConformance(targetFromUrl(url, { timeoutMs: 3000 }));
      expect(report.checks.filter((check) => check.outcome === 'fail')).toEqual([]);
      expect(report.target.protocol).toBe(protocol);
    }
  });
});

describe('the request schema', () => {
  it('accepts the body the agent client really sends', async () => {
    const agent = await startFakeAgent(jsonReply());
    try {
      await createAgentClient().call(fakeAgentCard({ url: agent.url }), {
        ...body('task_r', { city: '北京' }),
        upstream: { task_0: { agent: 'hotel_agent', output: { hotels: [] } } },
      });
      const checked = createEnvelopeValidator().parseRequest(agent.calls[0]!.body);
      expect(checked.ok, checked.ok ? '' : checked.error).toBe(true);
    } finally {
      await agent.close();
    }
  });
});
