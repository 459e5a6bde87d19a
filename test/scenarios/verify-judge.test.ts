/**
 * `verify.judge: on_doubt` (the default, docs/api.md#model-replies) over real HTTP with
 * the strict scripted model, which fails the test on any request it was not
 * given a reply for: a clean three-intent turn costs two model calls (intent,
 * answer), no judging call; a task the rule check flags, or an output that
 * fails its output_schema, brings the judge back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent, type FakeReply } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const THREE = '帮我订北京的酒店，明天入住，查一下明天从上海到北京的机票，再告诉我北京明天的天气';

const GOOD_FLIGHTS = jsonReply({ output: { flights: [{ flight_no: 'MU5101', departure: '08:00', arrival: '10:15', price: 1200 }] }, message: '找到 1 个航班。' });
const BAD_FLIGHTS = jsonReply({ output: { flights: 'none' }, message: '航班' });

const intent = (fields: Record<string, unknown>): ScriptedReplySpec => ({
  content: { kind: 'business', intent: [], confidence: 'high', reason: 'test', rewritten_query: THREE, user_friendly_message: '好的', ...fields },
  usage: false,
});
const task = (id: string, agent: string, inputs: Record<string, unknown>) => ({ task_id: id, description: `${agent} 任务`, assigned_agent: agent, inputs, dependencies: [] });
const THREE_INTENT = intent({
  intent: ['hotel_agent', 'flight_agent', 'weather_agent'],
  task_plan: {
    sub_tasks: [
      task('t1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW }),
      task('t2', 'flight_agent', { origin: '上海', destination: '北京', date: TOMORROW }),
      task('t3', 'weather_agent', { city: '北京', date: TOMORROW }),
    ],
  },
});
const answer = (text: string): ScriptedReplySpec => ({ content: text, usage: false });
const judgeOk: ScriptedReplySpec = { content: { sufficient: true, retry: [], reason: 'ok' }, usage: false };

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;
const calls = (events: readonly ResponseState[]) => (completeFinal(events).metadata.state as { llm: { calls: number } }).llm.calls;

describe('verify.judge: on_doubt', () => {
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  let board: TestSwitchboard;
  let agents: FakeAgent[];
  let flightReply: FakeReply = GOOD_FLIGHTS;

  beforeAll(async () => {
    agents = [
      await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' })),
      await startFakeAgent(jsonReply({ output: { booking_id: 'L1', driver: '王师傅', pickup_time: '07:00' } })),
      await startFakeAgent(() => flightReply),
      await startFakeAgent(sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } })),
    ];
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
    const yaml = sampleRegistry('agents_config.yaml', { 7101: agents[0]!.url, 7102: agents[1]!.url, 7103: agents[2]!.url, 7104: agents[3]!.url }).replace(/\n\s*cache_ttl_s: 300[^\n]*/, '');
    board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    gateway.close();
    await fake.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });
  afterEach(() => fake.assertComplete());

  it('a clean three-intent turn costs 2 model calls (intent, answer): no judging call', async () => {
    flightReply = GOOD_FLIGHTS;
    fake.push(THREE_INTENT, answer('北京饭店已订好；MU5101 明早 8 点；北京明天晴。'));
    const events = await board.chat(THREE, { sessionId: 'j-clean' });
    expect(stageEvents(events, 'agent_done')).toHaveLength(3);
    expect(calls(events)).toBe(2);
    expect(fake.requests).toHaveLength(2);
    expect(stageEvents(events, 'verify_done')[0]!.metadata.state).toMatchObject({ sufficient: true, judged: false });
  });

  it('an output that fails its output_schema brings the judging call back (3 calls)', async () => {
    flightReply = BAD_FLIGHTS;
    const before = fake.requests.length;
    fake.push(THREE_INTENT, judgeOk, answer('北京饭店已订好；航班暂时查不到；北京明天晴。'));
    // Worded apart from the clean turn's question, which the intent cache now answers for any user.
    const events = await board.chat(`${THREE}，麻烦了`, { sessionId: 'j-schema' });
    expect(stageEvents(events, 'agent_failed').map((event) => event.agent_id)).toEqual(['flight_agent']);
    expect(calls(events)).toBe(3);
    expect(fake.requests.length - before).toBe(3);
    expect(stageEvents(events, 'verify_done')[0]!.metadata.state).toMatchObject({ judged: true });
  });
});
