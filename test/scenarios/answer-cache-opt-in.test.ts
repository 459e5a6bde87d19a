/**
 * Caching an agent's answers is the agent's own opt-in (docs/api.md#sub-agent-wire-protocol
 * `cache_ttl_s`), and the semantic cache of hot questions honours it: on a
 * registry of our own (not the samples), the same question asked in two
 * sessions reaches an agent without `cache_ttl_s` both times, while an agent
 * with `cache_ttl_s` is asked once and the repeat says so on its agent_done
 * and on the final answer (`metadata.state.cached: true`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;
const doneState = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'done')!.metadata.state!;

function registry(urls: { rates: string; tides: string }): string {
  return `version: 1
supervisor:
  answer_cache_ttl_s: 600
agents:
  - id: rates_agent
    name: 汇率
    description: 查询货币汇率。Currency exchange rates.
    examples: ["美元汇率是多少", "what is the euro exchange rate"]
    keywords: ["汇率", "exchange rate"]
    endpoint: { url: ${urls.rates}, protocol: http-json, timeout_ms: 2000 }
    required_semantic_keys:
      - { key: currency, description: 币种, extract: { enum: [美元, 欧元, 日元] } }
  - id: tides_agent
    name: 潮汐
    description: 查询港口潮汐。Harbour tide tables.
    examples: ["青岛港的潮汐", "tide table for Qingdao harbour"]
    keywords: ["潮汐", "tide"]
    cache_ttl_s: 120
    endpoint: { url: ${urls.tides}, protocol: http-json, timeout_ms: 2000 }
    required_semantic_keys:
      - { key: harbour, description: 港口, extract: { enum: [青岛, 大连, 厦门] } }
`;
}

describe('answer cache: only agents with cache_ttl_s', () => {
  let rates: FakeAgent;
  let tides: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    rates = await startFakeAgent(jsonReply({ output: { rate: 7.1 }, message: '1 美元 = 7.1 人民币。' }));
    tides = await startFakeAgent(jsonReply({ output: { high: '06:12', low: '12:30' }, message: '青岛今日高潮 06:12，低潮 12:30。' }));
    board = await startTestSwitchboard({ registryYaml: registry({ rates: rates.url, tides: tides.url }) });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all([rates, tides].map((agent) => agent.close()));
  });

  it('sends every repeat to an agent without cache_ttl_s', async () => {
    const turns = [];
    for (const [session, user] of [['oi-r1', 'oi-u1'], ['oi-r2', 'oi-u2']] as const) {
      const events = await board.chat('美元汇率是多少', { sessionId: session, userId: user });
      turns.push(events);
      expect(completeFinal(events).metadata.state?.cached).toBeUndefined();
      expect(doneState(events).cached).toBeUndefined();
      expect(stageEvents(events, 'agent_done')).toEqual([expect.objectContaining({ agent_id: 'rates_agent' })]);
      expect(stageEvents(events, 'agent_done')[0]!.metadata.state?.cached).toBeUndefined();
    }
    expect(rates.calls).toHaveLength(2);
    expect(rates.calls.map((call) => (call.body as { inputs: unknown }).inputs)).toEqual([{ currency: '美元' }, { currency: '美元' }]);
  });

  it('answers the repeat for an agent with cache_ttl_s from cache, and says so on agent_done and final', async () => {
    const first = await board.chat('青岛港的潮汐', { sessionId: 'oi-t1', userId: 'oi-u1' });
    expect(tides.calls).toHaveLength(1);
    expect(stageEvents(first, 'agent_done')[0]!.metadata.state?.cached).toBeUndefined();
    expect(completeFinal(first).metadata.state?.cached).toBeUndefined();

    const second = await board.chat('青岛港的潮汐', { sessionId: 'oi-t2', userId: 'oi-u2' });
    expect(tides.calls).toHaveLength(1);
    const [agentDone] = stageEvents(second, 'agent_done');
    expect(agentDone).toMatchObject({
      agent_id: 'tides_agent',
      content: '青岛今日高潮 06:12，低潮 12:30。',
      metadata: { state: { status: 'completed', cached: true, output: { high: '06:12', low: '12:30' } } },
    });
    expect(completeFinal(second).metadata.state?.cached).toBe(true);
    expect(completeFinal(second).content).toBe(completeFinal(first).content);
    expect(doneState(second)).toMatchObject({ cached: true });
  });

  it('sends a plan that mixes both agents to both, every time', async () => {
    const ratesBefore = rates.calls.length;
    const tidesBefore = tides.calls.length;
    for (const session of ['oi-m1', 'oi-m2']) {
      const events = await board.chat('欧元汇率是多少，再查一下大连港的潮汐', { sessionId: session, userId: 'oi-u3' });
      expect(completeFinal(events).metadata.state?.cached).toBeUndefined();
      expect(stageEvents(events, 'agent_done').map((event) => event.agent_id).sort()).toEqual(['rates_agent', 'tides_agent']);
    }
    expect(rates.calls.length).toBe(ratesBefore + 2);
    // The tide agent's own reply is reused on the repeat (its response cache); the exchange-rate agent is asked again.
    expect(tides.calls.length).toBe(tidesBefore + 1);
  });
});
