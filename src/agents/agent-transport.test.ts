import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeAgentCard, jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import type { AgentRequestBody } from './types.js';

const body: AgentRequestBody = {
  task_id: 'plan_1_task_0',
  message: '北京天气',
  inputs: { city: '北京' },
  user_id: 'u1',
  thread_id: 's1',
  trace_id: 'trace-pool',
  upstream: {},
};

/** A resolver that knows only `agent.test` (loopback) and `meta.test` (a metadata address). */
const testLookup: LookupFunction = (hostname, options, callback) => {
  const table: Record<string, string> = { 'agent.test': '127.0.0.1', 'meta.test': '169.254.169.254' };
  const address = table[hostname];
  if (!address) {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    return;
  }
  const entry: LookupAddress = { address, family: 4 };
  if (options.all) callback(null, [entry]);
  else callback(null, entry.address, entry.family);
};

describe('sub-agent calls over keep-alive pools', () => {
  let agents: FakeAgent[] = [];
  afterEach(async () => {
    vi.unstubAllGlobals();
    await Promise.all(agents.map((agent) => agent.close()));
    agents = [];
  });
  const start = async (...args: Parameters<typeof startFakeAgent>) => {
    const agent = await startFakeAgent(...args);
    agents.push(agent);
    return agent;
  };

  it('sends one call after another, JSON and event stream, over one connection', async () => {
    const json = await start(jsonReply({ output: { ok: true } }));
    const sse = await start(sseReply({ progress: ['查询中'], result: { status: 'completed', output: { ok: true } } }));
    const client = createAgentClient({ retryBaseDelayMs: 1 });
    for (let index = 0; index < 5; index++) {
      expect((await client.call(fakeAgentCard({ url: json.url }), body)).ok).toBe(true);
      expect((await client.call(fakeAgentCard({ url: sse.url, protocol: 'http-sse' }), body)).ok).toBe(true);
    }
    expect(json.calls).toHaveLength(5);
    expect(sse.calls).toHaveLength(5);
    expect(json.connections).toBe(1);
    expect(sse.connections).toBe(1);
    await client.close();
  });

  it('opens no more connections to one agent than the pool allows, and every call still completes', async () => {
    const agent = await start(jsonReply({ output: { ok: true }, delayMs: 40 }));
    const client = createAgentClient({ connectionsPerOrigin: 2 });
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => client.call(fakeAgentCard({ url: agent.url, timeoutMs: 5000 }), body)));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(agent.calls).toHaveLength(6);
    expect(agent.connections).toBe(2);
    await client.close();
  });

  it('does not go through the global fetch', async () => {
    const json = await start(jsonReply({ output: { ok: true } }));
    const sse = await start(sseReply());
    vi.stubGlobal('fetch', () => Promise.reject(new Error('the global fetch was used')));
    const client = createAgentClient();
    expect(await client.call(fakeAgentCard({ url: json.url }), body)).toMatchObject({ ok: true });
    expect(await client.call(fakeAgentCard({ url: sse.url, protocol: 'http-sse' }), body)).toMatchObject({ ok: true });
    await client.close();
  });

  it('connects to the address the check judged: a name only the handed-in resolver knows is reached', async () => {
    const agent = await start(jsonReply({ output: { ok: true } }));
    const client = createAgentClient({ lookup: testLookup, retryBaseDelayMs: 1 });
    const port = new URL(agent.url).port;
    expect(await client.call(fakeAgentCard({ url: `http://agent.test:${port}/invoke` }), body)).toMatchObject({ ok: true });
    const refused = await client.call(fakeAgentCard({ url: `http://meta.test:${port}/invoke`, timeoutMs: 2000 }), body);
    expect(refused).toMatchObject({ ok: false, code: 'connect_error' });
    expect(agent.calls).toHaveLength(1);
    await client.close();
  });

  it('ends a dropped event stream on its connection, so a pool of one connection serves the next call', async () => {
    // The agent keeps the stream open after its result: the client stops there and must not wait for the end.
    const agent = await start(sseReply({ result: { status: 'completed', output: { n: 1 } }, holdOpen: true }));
    const client = createAgentClient({ connectionsPerOrigin: 1 });
    const card = fakeAgentCard({ url: agent.url, protocol: 'http-sse', timeoutMs: 2000 });
    expect(await client.call(card, body)).toMatchObject({ ok: true, reply: { output: { n: 1 } } });
    await agent.waitForAborts(1);
    expect(await client.call(card, body)).toMatchObject({ ok: true, reply: { output: { n: 1 } } });
    await client.close();
  });
});
