/**
 * The semantic cache of hot questions in LLM mode, with the strict scripted
 * fake model: the same question in another session of another user makes no
 * model call and no agent call (the intent cache, then the answer cache); a
 * paraphrase the model resolves to the same inputs costs the intent call
 * only; other inputs run the whole turn again. The sample weather agent has
 * `cache_ttl_s`, without which nothing of its would be kept.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;
const llmCalls = (events: readonly ResponseState[]) => (completeFinal(events).metadata.state as { llm?: { calls: number } }).llm?.calls ?? 0;

function weatherIntent(query: string, city: string): ScriptedReplySpec {
  return {
    content: {
      kind: 'business',
      intent: ['weather_agent'],
      confidence: 'high',
      reason: 'scripted',
      rewritten_query: query,
      user_friendly_message: '好的，我来查天气。',
      task_plan: { sub_tasks: [{ task_id: 't1', description: query, assigned_agent: 'weather_agent', inputs: { city, date: TOMORROW }, dependencies: [] }] },
    },
    usage: false,
  };
}

describe('answer cache in LLM mode', () => {
  let board: TestSwitchboard;
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  let weather: FakeAgent;
  let others: FakeAgent[];

  beforeAll(async () => {
    weather = await startFakeAgent((body) => {
      const { city, date } = (body as { inputs: { city: string; date: string } }).inputs;
      return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date, condition: '晴', high: 8, low: -2 }] }, message: `${city}明天晴。` } });
    });
    others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} }))));
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
    const yaml = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url });
    board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    gateway.close();
    await fake.close();
    await Promise.all([weather, ...others].map((agent) => agent.close()));
  });
  afterEach(() => fake.assertComplete());

  it('answers a repeat with no model or agent call, and a paraphrase with the intent call only', async () => {
    fake.push(weatherIntent('北京明天天气怎么样', '北京'), { content: '北京明天晴，最高8度，最低零下2度。', usage: false });
    const first = await board.chat('北京明天天气怎么样', { sessionId: 'al-1', userId: 'al-u1' });
    expect(llmCalls(first)).toBe(2);
    expect(weather.calls).toHaveLength(1);
    expect(completeFinal(first).content).toBe('北京明天晴，最高8度，最低零下2度。');

    const repeat = await board.chat('北京明天天气怎么样', { sessionId: 'al-2', userId: 'al-u2' });
    expect(fake.requests).toHaveLength(2);
    expect(llmCalls(repeat)).toBe(0);
    expect(weather.calls).toHaveLength(1);
    expect(completeFinal(repeat).metadata.state?.cached).toBe(true);
    expect(completeFinal(repeat).content).toBe('北京明天晴，最高8度，最低零下2度。');

    fake.push(weatherIntent('明天北京会下雨吗', '北京'));
    const paraphrase = await board.chat('明天北京会下雨吗', { sessionId: 'al-3', userId: 'al-u3' });
    expect(fake.requests).toHaveLength(3);
    expect(llmCalls(paraphrase)).toBe(1);
    expect(weather.calls).toHaveLength(1);
    // No agent call, yet the weather agent's kept reply is shown as its agent_done, marked cached.
    expect(stageEvents(paraphrase, 'agent_start')).toHaveLength(1);
    expect(stageEvents(paraphrase, 'agent_done')[0]!.metadata.state).toMatchObject({ status: 'completed', cached: true, output: { city: '北京' } });
    expect(completeFinal(paraphrase).metadata.state?.cached).toBe(true);

    fake.push(weatherIntent('上海明天天气怎么样', '上海'), { content: '上海明天晴。', usage: false });
    const other = await board.chat('上海明天天气怎么样', { sessionId: 'al-4', userId: 'al-u1' });
    expect(llmCalls(other)).toBe(2);
    expect(weather.calls).toHaveLength(2);
    expect(completeFinal(other).metadata.state?.cached).toBeUndefined();

    const metrics = await (await fetch(`${board.url}/metrics`)).text();
    expect(metrics).toMatch(/switchboard_cache_hits_total\{cache="answer"\} 2\b/);
    expect(metrics).toMatch(/switchboard_cache_misses_total\{cache="answer"\} 2\b/);
    expect(metrics).toMatch(/switchboard_cache_hits_total\{cache="intent"\} 1\b/);
    expect(metrics).toMatch(/switchboard_cache_misses_total\{cache="intent"\} 3\b/);
  });
});
