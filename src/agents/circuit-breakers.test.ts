/**
 * The per-agent circuit breaker through the real agent client and real HTTP
 * fakes. The breaker's clock is the test's (vitest's fake timers, advancing
 * with real time so sockets still work), so `open_s` passes on demand.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeAgentCard, jsonReply, startFakeAgent, statusReply, type FakeAgent, type FakeBehaviour } from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import { createAgentBreakers, type AgentBreakers, type BreakerState } from './circuit-breakers.js';
import type { AgentCard, CircuitBreakerSettings } from '../registry/types.js';
import type { AgentRequestBody } from './types.js';

const body: AgentRequestBody = { task_id: 't1', message: 'weather', inputs: {}, user_id: 'u1', thread_id: 's1', trace_id: 'trace', upstream: {} };
const SETTINGS: CircuitBreakerSettings = { enabled: true, errorRate: 0.5, minCalls: 4, windowS: 60, openS: 300 };

describe('sub-agent circuit breakers', () => {
  let agents: FakeAgent[] = [];
  let breakers: AgentBreakers;
  let transitions: [string, BreakerState, BreakerState][];
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    transitions = [];
    breakers = createAgentBreakers({ onTransition: (agent, from, to) => transitions.push([agent, from, to]) });
  });
  afterEach(async () => {
    breakers.close();
    vi.useRealTimers();
    await Promise.all(agents.map((agent) => agent.close()));
    agents = [];
  });
  const start = async (behaviour: FakeBehaviour) => {
    const agent = await startFakeAgent(behaviour);
    agents.push(agent);
    return agent;
  };
  const cardOf = (agent: FakeAgent, settings: Partial<CircuitBreakerSettings> = {}, id = 'weather_agent'): AgentCard => {
    const card = fakeAgentCard({ url: agent.url, id });
    return { ...card, endpoint: { ...card.endpoint, circuitBreaker: { ...SETTINGS, ...settings } } };
  };

  it('stops calling a failing agent after min_calls, lets one trial through after open_s, and closes when it succeeds', async () => {
    let healthy = false;
    const agent = await start(() => (healthy ? jsonReply({ output: { ok: true } }) : statusReply(503)));
    const card = cardOf(agent);
    const client = createAgentClient({ breakers, retryBaseDelayMs: 1 });

    for (let call = 0; call < SETTINGS.minCalls; call += 1) {
      const outcome = await client.call(card, body);
      expect(outcome).toMatchObject({ ok: false, code: 'http_status' });
    }
    expect(agent.calls).toHaveLength(SETTINGS.minCalls);
    expect(breakers.state(card.id)).toBe('open');

    // Open: refused at once, the agent is not called, whatever the time within open_s.
    for (let call = 0; call < 5; call += 1) {
      const outcome = await client.call(card, body);
      expect(outcome).toMatchObject({ ok: false, code: 'circuit_open' });
      vi.advanceTimersByTime(50_000);
    }
    expect(agent.calls).toHaveLength(SETTINGS.minCalls);

    // open_s has passed: one trial call, which fails and opens it again.
    vi.advanceTimersByTime(SETTINGS.openS * 1000);
    expect(breakers.state(card.id)).toBe('half_open');
    expect(await client.call(card, body)).toMatchObject({ ok: false, code: 'http_status' });
    expect(agent.calls).toHaveLength(SETTINGS.minCalls + 1);
    expect(breakers.state(card.id)).toBe('open');
    expect(await client.call(card, body)).toMatchObject({ ok: false, code: 'circuit_open' });
    expect(agent.calls).toHaveLength(SETTINGS.minCalls + 1);

    // The agent is back: the next trial succeeds and the breaker closes.
    healthy = true;
    vi.advanceTimersByTime(SETTINGS.openS * 1000);
    expect(await client.call(card, body)).toMatchObject({ ok: true });
    expect(breakers.state(card.id)).toBe('closed');
    expect(await client.call(card, body)).toMatchObject({ ok: true });
    expect(agent.calls).toHaveLength(SETTINGS.minCalls + 3);
    expect(transitions.map(([, , to]) => to)).toEqual(['open', 'half_open', 'open', 'half_open', 'closed']);
  });

  it('lets only one trial call through while half-open', async () => {
    let release: (() => void) | undefined;
    let healthy = false;
    const agent = await start(async () => {
      if (!healthy) return statusReply(500);
      await new Promise<void>((resolve) => (release = resolve));
      return jsonReply();
    });
    const card = cardOf(agent);
    const client = createAgentClient({ breakers });
    for (let call = 0; call < SETTINGS.minCalls; call += 1) await client.call(card, body);
    healthy = true;
    vi.advanceTimersByTime(SETTINGS.openS * 1000);
    const trial = client.call(card, body);
    await agent.waitForCalls(SETTINGS.minCalls + 1);
    expect(await client.call(card, body)).toMatchObject({ ok: false, code: 'circuit_open' });
    release!();
    expect(await trial).toMatchObject({ ok: true });
    expect(agent.calls).toHaveLength(SETTINGS.minCalls + 1);
  });

  it('keeps the breaker closed for an agent failing under the error rate', async () => {
    // Fails the last two calls of every five: never 50 % of the calls so far.
    const agent = await start((_body, index) => (index % 5 >= 3 ? statusReply(502) : jsonReply()));
    const card = cardOf(agent);
    const client = createAgentClient({ breakers });
    const codes: string[] = [];
    for (let call = 0; call < 30; call += 1) {
      const outcome = await client.call(card, body);
      codes.push(outcome.ok ? 'ok' : outcome.code);
    }
    expect(codes).not.toContain('circuit_open');
    expect(agent.calls).toHaveLength(30);
    expect(breakers.state(card.id)).toBe('closed');
  });

  it('opens at exactly the error rate, not only above it', async () => {
    // ok, fail, ok, fail: the fourth call makes 2 failures of 4.
    const agent = await start((_body, index) => (index % 2 === 1 ? statusReply(500) : jsonReply()));
    const card = cardOf(agent, { minCalls: 4, errorRate: 0.5 });
    const client = createAgentClient({ breakers });
    for (let call = 0; call < 4; call += 1) await client.call(card, body);
    expect(breakers.state(card.id)).toBe('open');
  });

  it('does not count input_required, an agent\'s own failed answer, a refused request or a cancelled call', async () => {
    const replies: FakeBehaviour = (_body, index) =>
      [jsonReply({ status: 'input_required', missingKeys: ['city'] }), jsonReply({ status: 'failed', message: 'no such order' }), statusReply(400)][index % 3]!;
    const agent = await start(replies);
    const card = cardOf(agent, { minCalls: 2, errorRate: 0.5 });
    const client = createAgentClient({ breakers });
    for (let call = 0; call < 9; call += 1) await client.call(card, body);
    const controller = new AbortController();
    controller.abort();
    for (let call = 0; call < 3; call += 1) await client.call(card, body, { signal: controller.signal });
    expect(breakers.state(card.id)).toBe('closed');
    expect(agent.calls).toHaveLength(9);
  });

  it('counts a reply that breaks its output schema', async () => {
    const agent = await start(jsonReply({ output: { wrong: true } }));
    const plain = fakeAgentCard({ url: agent.url, outputSchema: { type: 'object', required: ['forecast'] } });
    const card: AgentCard = { ...plain, endpoint: { ...plain.endpoint, circuitBreaker: { ...SETTINGS, minCalls: 2 } } };
    const client = createAgentClient({ breakers });
    expect(await client.call(card, body)).toMatchObject({ ok: false, code: 'output_schema' });
    expect(await client.call(card, body)).toMatchObject({ ok: false, code: 'output_schema' });
    expect(await client.call(card, body)).toMatchObject({ ok: false, code: 'circuit_open' });
  });

  it('starts afresh when a reload changes the agent\'s endpoint, and keeps state when nothing changed', async () => {
    const failing = await start(statusReply(500));
    const fixed = await start(jsonReply());
    const client = createAgentClient({ breakers });
    const before = cardOf(failing);
    for (let call = 0; call < SETTINGS.minCalls; call += 1) await client.call(before, body);
    expect(breakers.state('weather_agent')).toBe('open');
    // The same endpoint in a new snapshot (another field edited): still open.
    expect(await client.call({ ...before, description: 'edited' }, body)).toMatchObject({ code: 'circuit_open' });
    const after = cardOf(fixed);
    expect(await client.call(after, body)).toMatchObject({ ok: true });
    expect(breakers.state('weather_agent')).toBe('closed');
    expect(transitions.at(-1)).toEqual(['weather_agent', 'open', 'closed']);
  });

  it('never opens when the registry switches it off', async () => {
    const agent = await start(statusReply(500));
    const card = cardOf(agent, { enabled: false, minCalls: 1 });
    const client = createAgentClient({ breakers });
    for (let call = 0; call < 5; call += 1) expect(await client.call(card, body)).toMatchObject({ code: 'http_status' });
    expect(agent.calls).toHaveLength(5);
  });
});
