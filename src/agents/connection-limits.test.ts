import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentCard, sseReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import { connectionWaitMs, createConnectionLimits } from './connection-limits.js';
import type { AgentRequestBody } from './types.js';

describe('createConnectionLimits', () => {
  it('grants up to the limit, then queues; a release hands the slot to the first waiting call', async () => {
    const waiting: number[] = [];
    const limits = createConnectionLimits({ onWaiting: (_agent, count) => waiting.push(count) });
    const first = await limits.acquire('a', 2, 1000);
    const second = await limits.acquire('a', 2, 1000);
    expect('release' in first && 'release' in second).toBe(true);
    const third = limits.acquire('a', 2, 1000);
    expect(limits.state('a')).toEqual({ active: 2, waiting: 1 });
    (first as { release(): void }).release();
    const granted = await third;
    expect('release' in granted).toBe(true);
    expect(limits.state('a')).toEqual({ active: 2, waiting: 0 });
    expect(waiting).toEqual([1, 0]);
    // Another agent has its own slots.
    expect('release' in (await limits.acquire('b', 1, 0))).toBe(true);
  });

  it('refuses with busy after the bounded wait, and a release twice frees one slot only', async () => {
    const waited: number[] = [];
    const limits = createConnectionLimits({ onWaited: (_agent, seconds) => waited.push(seconds) });
    const held = (await limits.acquire('a', 1, 0)) as { release(): void };
    const refused = await limits.acquire('a', 1, 30);
    expect(refused).toMatchObject({ reason: 'busy', limit: 1 });
    expect((refused as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(25);
    expect(waited).toHaveLength(1);
    held.release();
    held.release();
    expect(limits.state('a')).toEqual({ active: 0, waiting: 0 });
  });

  it('ends a wait at once when the caller aborts', async () => {
    const limits = createConnectionLimits();
    await limits.acquire('a', 1, 0);
    const controller = new AbortController();
    const pending = limits.acquire('a', 1, 10_000, controller.signal);
    controller.abort();
    expect(await pending).toEqual({ reason: 'aborted' });
    expect(limits.state('a').waiting).toBe(0);
  });

  it('serves the waiting calls at once when a reload raises the limit, instead of refusing them busy beside free slots', async () => {
    const limits = createConnectionLimits();
    await limits.acquire('a', 1, 0);
    const waiting = limits.acquire('a', 1, 200);
    expect(limits.state('a')).toEqual({ active: 1, waiting: 1 });
    // The registry now says 3: the next call takes a slot, and so does the one that was waiting.
    const next = await limits.acquire('a', 3, 200);
    expect('release' in next).toBe(true);
    expect('release' in (await waiting)).toBe(true);
    expect(limits.state('a')).toEqual({ active: 3, waiting: 0 });
  });

  it('keeps to a lowered limit: a release past it frees the slot instead of handing it on', async () => {
    const limits = createConnectionLimits();
    const held = [await limits.acquire('a', 2, 0), await limits.acquire('a', 2, 0)] as { release(): void }[];
    const waiting = limits.acquire('a', 1, 100); // the registry now says 1
    held[0].release();
    expect(limits.state('a')).toEqual({ active: 1, waiting: 1 });
    expect(await waiting).toMatchObject({ reason: 'busy', limit: 1 });
  });

  it('waits a short share of the call timeout, never all of it', () => {
    expect(connectionWaitMs(15_000)).toBe(2_000);
    expect(connectionWaitMs(1_000)).toBe(500);
  });
});

describe('concurrent calls to one streaming agent', () => {
  let fake: FakeAgent | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const body = (index: number): AgentRequestBody => ({
    task_id: `t${index}`,
    message: 'stream',
    inputs: {},
    user_id: `u${index}`,
    thread_id: `s${index}`,
    trace_id: `tr${index}`,
    upstream: {},
  });

  it('holds 200 concurrent SSE calls to one agent, every one with all its progress', async () => {
    fake = await startFakeAgent(sseReply({ progress: ['one', 'two', 'three'], intervalMs: 100, result: { status: 'completed', output: { done: true } } }));
    const client = createAgentClient({ retryBaseDelayMs: 1 });
    const card = fakeAgentCard({ url: fake.url, protocol: 'http-sse', timeoutMs: 20_000 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, async (_, index) => {
          const progress: string[] = [];
          const outcome = await client.call(card, body(index), { onProgress: (content) => progress.push(content) });
          return { ok: outcome.ok, progress };
        }),
      );
      expect(outcomes.filter((outcome) => !outcome.ok)).toHaveLength(0);
      expect(outcomes.every((outcome) => outcome.progress.join() === 'one,two,three')).toBe(true);
      expect(fake.connections).toBeGreaterThan(64);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('fails the calls past max_connections with busy after a short wait, not at their timeout; the waiting count is reported', async () => {
    fake = await startFakeAgent(sseReply({ progress: ['a', 'b'], intervalMs: 1500, result: { status: 'completed', output: {} } }));
    let mostWaiting = 0;
    const client = createAgentClient({ retryBaseDelayMs: 1, connectionHooks: { onWaiting: (_agent, waiting) => (mostWaiting = Math.max(mostWaiting, waiting)) } });
    const base = fakeAgentCard({ url: fake.url, protocol: 'http-sse', timeoutMs: 10_000 });
    const card = { ...base, endpoint: { ...base.endpoint, maxConnections: 5 } };
    try {
      const started = performance.now();
      const outcomes = await Promise.all(Array.from({ length: 8 }, (_, index) => client.call(card, body(index)).then((outcome) => ({ outcome, ms: performance.now() - started }))));
      const busy = outcomes.filter(({ outcome }) => !outcome.ok && outcome.code === 'busy');
      expect(outcomes.filter(({ outcome }) => outcome.ok)).toHaveLength(5);
      expect(busy).toHaveLength(3);
      // A 10 s timeout gives a 2 s wait: the busy calls end well before the timeout would have.
      for (const { outcome, ms } of busy) {
        expect(ms).toBeLessThan(4_000);
        expect(!outcome.ok && outcome.reason).toMatch(/all 5 connections to the agent are in use/);
      }
      expect(mostWaiting).toBe(3);
      expect(fake.calls).toHaveLength(5);
    } finally {
      await client.close();
    }
  }, 30_000);
});
