/**
 * The verify step over real HTTP with the strict scripted model: results
 * judged sufficient; a "nothing found" result re-sent once with the judge's
 * revised message and then sufficient; retries exhausted on two turns in a row
 * → escalation with reason verify_failed. Offline, the rule check alone marks
 * an empty result as unanswered (no model call, no verify stages).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent, type FakeReply } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const PARALLEL = '帮我订北京的酒店，明天入住，再告诉我北京明天的天气';
const WEATHER = '北京明天天气怎么样';

const GOOD_WEATHER = sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } });
const NOTHING = sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [] }, message: '未找到北京的天气预报。' } });

function intent(fields: Record<string, unknown>): ScriptedReplySpec {
  return { content: { kind: 'business', intent: [], confidence: 'medium', reason: 'test', rewritten_query: '', user_friendly_message: '好的', ...fields }, usage: false };
}
const task = (id: string, agent: string, inputs: Record<string, unknown>) => ({ task_id: id, description: `${agent} 任务`, assigned_agent: agent, inputs, dependencies: [] });
const WEATHER_INTENT = intent({ intent: ['weather_agent'], rewritten_query: WEATHER, task_plan: { sub_tasks: [task('t1', 'weather_agent', { city: '北京', date: TOMORROW })] } });
const answer = (text: string): ScriptedReplySpec => ({ content: text, usage: false });

/** The task id the verify prompt gives the weather task. */
function weatherTaskId(request: RecordedRequest): string {
  const match = /task_id: (\S+) \| service: 天气查询/.exec(request.messages[1]!.content);
  if (!match) throw new Error('the verify prompt names no weather task');
  return match[1]!;
}

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;
const calls = (events: readonly ResponseState[]) => (completeFinal(events).metadata.state as { llm: { calls: number } }).llm.calls;

describe('verify step (LLM mode)', () => {
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  let board: TestSwitchboard;
  let hotel: FakeAgent;
  let weather: FakeAgent;
  let others: FakeAgent[];
  let weatherScript: FakeReply[] = [];

  beforeAll(async () => {
    hotel = await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' }));
    weather = await startFakeAgent(() => weatherScript.shift() ?? GOOD_WEATHER);
    others = [await startFakeAgent(jsonReply({ output: {} })), await startFakeAgent(jsonReply({ output: {} }))];
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
    const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: others[0]!.url, 7103: others[1]!.url, 7104: weather.url }).replace(/\n\s*cache_ttl_s: 300[^\n]*/, '')
      // The judge on every multi-intent turn; the default (on_doubt) is in verify-judge.test.ts.
      .replace(/^supervisor:\n/m, 'supervisor:\n  verify: { judge: always }\n');
    board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    gateway.close();
    await fake.close();
    await Promise.all([hotel, weather, ...others].map((agent) => agent.close()));
  });
  afterEach(() => fake.assertComplete());

  it('a single-intent turn whose result passes the rule check makes no verify call (2 calls), but shows the stages', async () => {
    fake.push(WEATHER_INTENT, answer('北京明天晴。'));
    const events = await board.chat(WEATHER, { sessionId: 'v-skip' });
    expect(calls(events)).toBe(2);
    const done = stageEvents(events, 'verify_done')[0]!;
    expect(stageEvents(events, 'verify_start')[0]).toMatchObject({ agent_id: 'supervisor', is_thinking: true });
    expect(done.metadata.state).toMatchObject({ sufficient: true, judged: false, retried: [] });
  });

  it('with judge: always, judges a multi-intent turn sufficient in one call: 3 calls, results delimited as data', async () => {
    fake.push(
      intent({ intent: ['hotel_agent', 'weather_agent'], rewritten_query: PARALLEL, task_plan: { sub_tasks: [task('t1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW }), task('t2', 'weather_agent', { city: '北京' })] } }),
      { content: { sufficient: true, retry: [], reason: 'ok' }, usage: false },
      answer('北京饭店已订好，北京明天晴。'),
    );
    const events = await board.chat(PARALLEL, { sessionId: 'v-ok' });
    expect(calls(events)).toBe(3);
    const verifyPrompt = fake.requests.at(-2)!.messages[1]!.content;
    expect(verifyPrompt).toMatch(/<<<DATA:result>>>\n[^]*北京饭店[^]*\n<<<END:result>>>/);
    expect(stageEvents(events, 'verify_done')[0]!.metadata.state).toMatchObject({ sufficient: true, judged: true });
    const stages = events.map((event) => event.metadata.stage);
    expect(stages.indexOf('verify_done')).toBeLessThan(stages.indexOf('summarize_start'));
  });

  it('re-sends a "nothing found" read-only task with the revised message, then answers', async () => {
    weatherScript = [NOTHING, GOOD_WEATHER];
    const before = weather.calls.length;
    fake.push(WEATHER_INTENT, (request) => ({ content: { sufficient: false, retry: [{ task_id: weatherTaskId(request), revised_message: '查询北京2026-11-23的天气预报' }], reason: '天气没有结果' }, usage: false }), answer('北京明天晴。'));
    const events = await board.chat(WEATHER, { sessionId: 'v-retry' });
    expect(calls(events)).toBe(3);
    expect(weather.calls.length - before).toBe(2);
    expect((weather.calls.at(-1)!.body as { message: string }).message).toBe('查询北京2026-11-23的天气预报');
    expect(stageEvents(events, 'verify_done')[0]!.metadata.state).toMatchObject({ sufficient: true, judged: true, rounds: 1 });
    expect(stageEvents(events, 'agent_done').at(-1)!.metadata.state).toMatchObject({ status: 'completed', output: { forecast: [expect.objectContaining({ condition: '晴' })] } });
    expect(stageEvents(events, 'escalate')).toHaveLength(0);
    expect(events.at(-1)!.metadata.state?.outcome).toBe('completed');
  });

  it('retries exhausted: the answer says what is missing, and the second such turn escalates with reason verify_failed', async () => {
    const judge = (request: RecordedRequest): ScriptedReplySpec => ({ content: { sufficient: false, retry: [{ task_id: weatherTaskId(request), revised_message: '再查一次北京明天的天气' }], reason: '没有天气数据' }, usage: false });
    weatherScript = [NOTHING, NOTHING, NOTHING, NOTHING];
    fake.push(WEATHER_INTENT, judge, answer('抱歉，没有找到北京明天的天气。'));
    const first = await board.chat(WEATHER, { sessionId: 'v-fail' });
    expect(stageEvents(first, 'verify_done')[0]!.metadata.state).toMatchObject({ sufficient: false, rounds: 1, missing: [expect.objectContaining({ reason: 'nothing_found' })] });
    expect(fake.requests.at(-1)!.messages[1]!.content).toMatch(/Not completed:\n\[天气查询\] 没有找到相关结果/);
    expect(stageEvents(first, 'escalate')).toHaveLength(0);
    expect(first.at(-1)!.metadata.state).toMatchObject({ outcome: 'unresolved', unresolved_reason: 'verify_failed' });

    fake.push(WEATHER_INTENT, judge, answer('抱歉，还是没有找到北京明天的天气。'));
    const second = await board.chat(WEATHER, { sessionId: 'v-fail' });
    expect(calls(second)).toBe(3);
    const escalate = stageEvents(second, 'escalate');
    expect(escalate).toHaveLength(1);
    expect((escalate[0]!.metadata.state as { escalation_card: { reason: string } }).escalation_card.reason).toBe('verify_failed');
    expect(weatherScript).toHaveLength(0);
  });
});

describe('verify step (offline rule check)', () => {
  it('counts a "nothing found" result as unanswered without any verify stage, and escalates after escalate_after_failures', async () => {
    const weather = await startFakeAgent(NOTHING);
    const others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} }))));
    const yaml = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url });
    const board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
    try {
      const first = await board.chat(WEATHER, { sessionId: 'off-1' });
      expect(first.some((event) => event.metadata.stage.startsWith('verify'))).toBe(false);
      expect(completeFinal(first).content).toContain('天气查询：没有找到相关结果，未能回答您的问题');
      expect(stageEvents(first, 'escalate')).toHaveLength(0);
      // The agent completed, but the turn did not answer the question: it counts as unresolved, in done and in /metrics.
      expect(first.at(-1)!.metadata.state).toMatchObject({ outcome: 'unresolved', unresolved_reason: 'verify_failed' });
      const metrics = await (await fetch(`${board.url}/metrics`)).text();
      expect(metrics).toMatch(/^switchboard_turns_total\{outcome="unresolved"\} 1$/m);
      expect(metrics).not.toMatch(/^switchboard_turns_total\{outcome="completed"\}/m);
      const second = await board.chat(WEATHER, { sessionId: 'off-1' });
      expect((stageEvents(second, 'escalate')[0]!.metadata.state as { escalation_card: { reason: string } }).escalation_card.reason).toBe('verify_failed');
      expect(weather.calls).toHaveLength(2);
    } finally {
      await board.close();
      await Promise.all([weather, ...others].map((agent) => agent.close()));
    }
  });
});
