/**
 * A failing sub-agent over real HTTP, through whole turns: its breaker opens
 * after `min_calls` failed calls, a turn that needs it then answers at once
 * while its other sub-tasks still run, `GET /v1/agents` and `/metrics` show
 * the state, a trial call after `open_s` closes it again, and a reload that
 * points the agent elsewhere starts its breaker afresh. A read-only agent with
 * `stale_if_error_s` answers from its last good reply when the call fails.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { hangReply, jsonReply, sseReply, startFakeAgent, statusReply, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const START = new Date(2026, 10, 22, 10, 0, 0).getTime();
const OPEN_S = 1;
const TIMEOUT_MS = 3000;

type Mode = 'ok' | 'error' | 'hang';

describe('sub-agent circuit breaker and stale-if-error', () => {
  let clock = START;
  let mode: Mode = 'ok';
  let weather: FakeAgent;
  let spare: FakeAgent;
  let others: FakeAgent[];
  let board: TestSwitchboard;

  beforeAll(async () => {
    weather = await startFakeAgent((body) => {
      if (mode === 'error') return statusReply(500);
      if (mode === 'hang') return hangReply();
      const city = (body as { inputs: { city: string } }).inputs.city;
      return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date: '2026-11-23', condition: '晴', high: 8, low: -2 }] }, message: `${city}明天晴，8 到 -2 度。` } });
    });
    spare = await startFakeAgent(sseReply({ result: { status: 'completed', output: { city: '西安', forecast: [] }, message: '备用天气服务：晴。' } }));
    others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} }))));
    const text = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url }, { answerCacheTtlS: 0 });
    const document = parseDocument(text);
    document.setIn(['supervisor', 'escalate_after_failures'], 50);
    const agents = document.get('agents') as { items: { get(key: string): unknown }[] };
    const index = agents.items.findIndex((item) => item.get('id') === 'weather_agent');
    document.setIn(['agents', index, 'cache_ttl_s'], 1);
    document.setIn(['agents', index, 'stale_if_error_s'], 3600);
    document.setIn(['agents', index, 'endpoint', 'retries'], 0);
    document.setIn(['agents', index, 'endpoint', 'timeout_ms'], TIMEOUT_MS);
    document.setIn(['agents', index, 'endpoint', 'circuit_breaker'], { min_calls: 3, error_rate: 0.5, window_s: 60, open_s: OPEN_S });
    board = await startTestSwitchboard({ registryYaml: document.toString(), now: () => new Date(clock) });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all([weather, spare, ...others].map((agent) => agent.close()));
  });

  const breakerOf = async (agentId: string) => {
    const body = (await (await fetch(`${board.url}/v1/agents`)).json()) as { agents: { id: string; health?: { breaker?: string } }[] };
    return body.agents.find((agent) => agent.id === agentId)?.health?.breaker;
  };

  it('serves the last good reply, marked stale with its age, when a read-only agent fails', async () => {
    const first = await board.chat('北京明天天气怎么样', { sessionId: 'stale-1' });
    expect(stageEvents(first, 'agent_done')[0]!.metadata.state).toMatchObject({ status: 'completed' });
    expect(weather.calls).toHaveLength(1);

    // Two minutes later the entry is past cache_ttl_s (1 s): the agent is asked, and it fails.
    clock += 120_000;
    mode = 'error';
    const second = await board.chat('北京明天天气怎么样', { sessionId: 'stale-2', userId: 'u2' });
    expect(weather.calls).toHaveLength(2);
    const done = stageEvents(second, 'agent_done');
    expect(done).toHaveLength(1);
    expect(done[0]!.metadata.state).toMatchObject({ status: 'completed', cached: true, stale: true, age_s: 120 });
    expect(done[0]!.content).toContain('2分钟前');
    expect(done[0]!.content).toContain('北京明天晴');
    expect(stageEvents(second, 'agent_failed')).toHaveLength(0);
    expect(finalEvent(second).content).toContain('2分钟前');
    expect(finalEvent(second).content).toContain('北京明天晴');
  });

  it('opens after min_calls failed calls: the next turn does not wait for the agent and its other tasks still run', async () => {
    // The second failed call in the window (the first was the stale turn's): a city never answered, so nothing stale.
    mode = 'hang';
    const started = performance.now();
    const failed = await board.chat('上海明天天气怎么样', { sessionId: 'open-1' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(stageEvents(failed, 'agent_failed')[0]!.metadata.state).toMatchObject({ code: 'timeout' });
    expect(await breakerOf('weather_agent')).toBe('open');
    const callsWhenOpened = weather.calls.length;

    const hotelCalls = others[0]!.calls.length;
    const startedOpen = performance.now();
    const events = await board.chat('帮我订北京的酒店，明天入住，再告诉我广州明天的天气', { sessionId: 'open-2' });
    const elapsed = performance.now() - startedOpen;
    expect(elapsed).toBeLessThan(TIMEOUT_MS / 2);
    expect(weather.calls).toHaveLength(callsWhenOpened);
    const failure = stageEvents(events, 'agent_failed').find((event) => event.agent_id === 'weather_agent');
    expect(failure?.metadata.state).toMatchObject({ code: 'circuit_open' });
    expect(failure?.content).toContain('暂停调用');
    expect(others[0]!.calls.length).toBe(hotelCalls + 1);
    expect(stageEvents(events, 'agent_start').some((event) => event.agent_id === 'hotel_agent')).toBe(true);

    const metrics = await (await fetch(`${board.url}/metrics`)).text();
    expect(metrics).toMatch(/switchboard_agent_breaker_state\{agent="weather_agent"\} 2/);
    expect(metrics).toMatch(/switchboard_agent_breaker_transitions_total\{agent="weather_agent",to="open"\} 1/);
    expect(metrics).toMatch(/switchboard_agent_breaker_state\{agent="hotel_agent"\} 0/);
  });

  it('lets one trial call through after open_s and closes when it succeeds', async () => {
    mode = 'ok';
    await new Promise((resolve) => setTimeout(resolve, OPEN_S * 1000 + 100));
    expect(await breakerOf('weather_agent')).toBe('half_open');
    const calls = weather.calls.length;
    const events = await board.chat('深圳明天天气怎么样', { sessionId: 'close-1' });
    expect(weather.calls).toHaveLength(calls + 1);
    expect(stageEvents(events, 'agent_done')[0]!.metadata.state).toMatchObject({ status: 'completed' });
    expect(await breakerOf('weather_agent')).toBe('closed');
  });

  it('starts afresh when a reload points the agent at another endpoint', async () => {
    mode = 'error';
    await board.chat('成都明天天气怎么样', { sessionId: 'reload-1' });
    await board.chat('杭州明天天气怎么样', { sessionId: 'reload-2' });
    expect(await breakerOf('weather_agent')).toBe('open');

    writeFileSync(board.configPath, readFileSync(board.configPath, 'utf8').replace(weather.url, spare.url));
    let state: string | undefined;
    for (let waited = 0; waited < 5000 && state !== 'closed'; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = await breakerOf('weather_agent');
    }
    expect(state).toBe('closed');
    const events = await board.chat('西安明天天气怎么样', { sessionId: 'reload-3' });
    expect(spare.calls).toHaveLength(1);
    expect(stageEvents(events, 'agent_done')[0]!.content).toContain('备用天气服务');
  });
});
