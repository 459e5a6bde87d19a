import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentCard, startFakeAgent, statusReply } from '../../../test/support/fake-agent.js';
import { startA2aPeer, startLegacyA2aPeer, type A2aPeer, type A2aPeerOptions } from '../../../test/support/a2a-peers.js';
import { createAgentClient } from '../agent-client.js';
import type { AgentRequestBody } from '../types.js';
import { agentCardUrl } from './a2a.js';

const body: AgentRequestBody = {
  task_id: 'plan_1_task_0',
  message: 'What is the weather in Paris?',
  inputs: { city: 'Paris' },
  user_id: 'u1',
  thread_id: 's1',
  trace_id: 'trace-abc',
  upstream: { plan_1_task_9: { agent: 'other', output: { x: 1 } } },
};

const client = createAgentClient({ retryBaseDelayMs: 1 });

describe('a2a protocol adapter', () => {
  const peers: A2aPeer[] = [];
  afterEach(async () => {
    await Promise.all(peers.splice(0).map((peer) => peer.close()));
  });
  const start = async (kind: 'v1' | 'v03', options: A2aPeerOptions = {}) => {
    const peer = kind === 'v1' ? await startA2aPeer(options) : await startLegacyA2aPeer(options);
    peers.push(peer);
    return peer;
  };
  const cardFor = (peer: A2aPeer, fields: { retries?: number; timeoutMs?: number; headers?: Record<string, string>; url?: string } = {}) =>
    fakeAgentCard({ url: fields.url ?? peer.url, protocol: 'a2a', retries: fields.retries, timeoutMs: fields.timeoutMs, headers: fields.headers, id: 'weather_agent' });

  it('finds the card under the base url, or takes a .json url as the card itself', () => {
    expect(agentCardUrl('http://h:1')).toBe('http://h:1/.well-known/agent-card.json');
    expect(agentCardUrl('http://h:1/agents/w')).toBe('http://h:1/agents/w/.well-known/agent-card.json');
    expect(agentCardUrl('http://h:1/cards/w.json')).toBe('http://h:1/cards/w.json');
  });

  for (const kind of ['v1', 'v03'] as const) {
    for (const streaming of [true, false]) {
      it(`${kind}, ${streaming ? 'streaming' : 'blocking'}: completed with the artifact data as output and the status text as message`, async () => {
        const peer = await start(kind, { streaming });
        const progress: string[] = [];
        const outcome = await client.call(cardFor(peer), body, { onProgress: (text) => progress.push(text), delegationDepth: 2 });
        expect(outcome).toMatchObject({
          ok: true,
          reply: { status: 'completed', message: 'Sunny in Paris, up to 21°C', output: { city: 'Paris', forecast: 'sunny', high_c: 21 } },
        });
        // One A2A message: text = the sub-task, data = inputs and upstream; message id = task id; context = session.
        expect(peer.received).toHaveLength(1);
        expect(peer.received[0]).toMatchObject({ text: body.message, data: { inputs: body.inputs, upstream: body.upstream }, messageId: body.task_id, contextId: 's1' });
        if (streaming) expect(progress).toEqual(['Looking up the weather in Paris']);
        else expect(progress).toEqual([]);
        if (kind === 'v1') {
          expect(peer.received[0]!.headers).toMatchObject({ 'x-switchboard-depth': '2', 'x-trace-id': 'trace-abc' });
        }
      });
    }

    it(`${kind}: input-required with keys named in a data part becomes missing_keys`, async () => {
      const peer = await start(kind);
      const outcome = await client.call(cardFor(peer), { ...body, inputs: {} });
      expect(outcome).toMatchObject({ ok: true, reply: { status: 'input_required', missing_keys: ['city'], message: 'Which city do you mean?' } });
    });

    it(`${kind}: input-required without named keys passes the question on`, async () => {
      const peer = await start(kind, { nameKeys: false });
      const outcome = await client.call(cardFor(peer), { ...body, inputs: {} });
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.reply).toEqual({ status: 'input_required', output: {}, message: 'Which city do you mean?' });
    });

    it(`${kind}: a cancelled call sends CancelTask for its running task`, async () => {
      const peer = await start(kind, { hold: true });
      const controller = new AbortController();
      const progress: string[] = [];
      const pending = client.call(cardFor(peer), body, {
        signal: controller.signal,
        onProgress: (text) => {
          progress.push(text);
          controller.abort();
        },
      });
      const outcome = await pending;
      expect(outcome).toMatchObject({ ok: false, code: 'aborted' });
      await expect.poll(() => peer.cancelled.length, { timeout: 3000 }).toBe(1);
    });
  }

  it('speaks HTTP+JSON when that is the binding the card offers', async () => {
    const peer = await start('v1', { binding: 'HTTP+JSON', streaming: false });
    const outcome = await client.call(cardFor(peer), body);
    expect(outcome).toMatchObject({ ok: true, reply: { status: 'completed', output: { forecast: 'sunny' } } });
  });

  it('reuses the fetched card for later calls', async () => {
    const peer = await start('v1');
    await client.call(cardFor(peer), body);
    await client.call(cardFor(peer), body);
    expect(peer.cardFetches).toBe(1);
  });

  it('a card that cannot be fetched is a failed call naming the status, retried on 5xx', async () => {
    const fake = await startFakeAgent([statusReply(503), statusReply(503)]);
    try {
      const outcome = await client.call(fakeAgentCard({ url: fake.url, protocol: 'a2a', retries: 1 }), body);
      expect(outcome).toMatchObject({ ok: false, code: 'http_status', attempts: 2 });
      expect(fake.calls).toHaveLength(2);
    } finally {
      await fake.close();
    }
  });

  it('an unreachable agent is a connect error', async () => {
    const peer = await start('v1');
    const url = peer.url;
    await peer.close();
    peers.length = 0;
    const outcome = await client.call(fakeAgentCard({ url, protocol: 'a2a' }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'connect_error' });
  });

  it('a reply larger than the cap is too_large', async () => {
    const peer = await start('v1', { streaming: false });
    const small = createAgentClient({ retryBaseDelayMs: 1, maxResponseBytes: 300 });
    const outcome = await small.call(cardFor(peer), body);
    expect(outcome).toMatchObject({ ok: false, code: 'too_large' });
  });

  it('refuses a card host that resolves to a link-local address', async () => {
    const peer = await start('v1');
    const guarded = createAgentClient({
      retryBaseDelayMs: 1,
      lookup: ((_host: string, _options: unknown, callback: (error: null, address: { address: string; family: number }[]) => void) =>
        callback(null, [{ address: '169.254.169.254', family: 4 }])) as never,
    });
    const port = new URL(peer.url).port;
    const outcome = await guarded.call(fakeAgentCard({ url: `http://agent.example:${port}/`, protocol: 'a2a' }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'connect_error' });
    expect(peer.received).toHaveLength(0);
  });

  it('a timeout ends the call and cancels the task', async () => {
    const peer = await start('v1', { hold: true });
    const outcome = await client.call(cardFor(peer, { timeoutMs: 300 }), body);
    expect(outcome).toMatchObject({ ok: false, code: 'timeout' });
    await expect.poll(() => peer.cancelled.length, { timeout: 3000 }).toBe(1);
  });
});
