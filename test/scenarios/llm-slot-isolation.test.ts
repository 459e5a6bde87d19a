/**
 * Slot values stay with their clause in LLM mode, over real HTTP: the scripted
 * fake OpenAI server drafts the plan (values included), the sample travel
 * registry points at fake sub-agents, and each turn checks the inputs every
 * agent actually received. Values the user gave for a request reach it even
 * when two full requests are joined by 和 / and; a value the model moved into
 * another request (in its draft or in its rewrite of the query) is dropped,
 * because values are grounded in the user's own clause for that request.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const DECEMBER_3 = '2026-12-03';

let agents: Record<'hotel' | 'limo' | 'flight' | 'weather', FakeAgent>;
let fake: FakeOpenAI;
let gateway: OpenAiCompatibleGateway;
let board: TestSwitchboard;
let sessions = 0;

beforeAll(async () => {
  agents = {
    hotel: await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已预订。' })),
    limo: await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00' }, message: '已安排。' })),
    flight: await startFakeAgent(jsonReply({ output: { flights: [{ flight_no: 'CA1501', price: 1200 }] }, message: '有航班。' })),
    weather: await startFakeAgent(sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '晴。' } })),
  };
  // No answer cache and no response cache: every turn must reach the fakes.
  const yaml = sampleRegistry('agents_config.yaml', { 7101: agents.hotel.url, 7102: agents.limo.url, 7103: agents.flight.url, 7104: agents.weather.url }, { answerCacheTtlS: 0 })
    .replace(/^\s*cache_ttl_s:.*\n/gm, '');
  fake = await startFakeOpenAI();
  gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
  board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
});

afterAll(async () => {
  await board?.close();
  gateway?.close();
  await fake?.close();
  await Promise.all(Object.values(agents ?? {}).map((agent) => agent.close()));
});

afterEach(() => fake.assertComplete());

function task(taskId: string, agent: string, inputs: Record<string, unknown>) {
  return { task_id: taskId, description: `处理 ${agent}`, assigned_agent: agent, inputs, dependencies: [] };
}

/** The intent call's reply: the model's rewrite and its plan draft. */
function intentReply(rewrittenQuery: string, subTasks: ReturnType<typeof task>[]): ScriptedReplySpec {
  return {
    content: {
      kind: 'business',
      intent: subTasks.map((entry) => entry.assigned_agent),
      confidence: 'high',
      reason: 'scripted',
      rewritten_query: rewrittenQuery,
      user_friendly_message: '明白了！',
      task_plan: { sub_tasks: subTasks },
    },
    usage: false,
  };
}

const SUMMARY: ScriptedReplySpec = { content: '已为您查好。', usage: false };

/** One LLM-mode turn; returns the inputs each agent received this turn (absent: not called) and the keys the user is asked for. */
async function turn(query: string, reply: ScriptedReplySpec) {
  // Clean results are not judged (verify.judge: on_doubt): intent and answer only.
  fake.push(reply, SUMMARY);
  const before = new Map(Object.entries(agents).map(([name, agent]) => [name, agent.calls.length]));
  const events = await board.chat(query, { sessionId: `llm-slots-${++sessions}` });
  const received: Record<string, Record<string, unknown>[]> = {};
  for (const [name, agent] of Object.entries(agents)) {
    const calls = agent.calls.slice(before.get(name));
    if (calls.length > 0) received[name] = calls.map((call) => (call.body as { inputs: Record<string, unknown> }).inputs);
  }
  const final = events.findLast((event) => event.metadata.stage === 'final')!;
  const asked = (final.metadata.semantic_info ?? []).map((entry) => [entry.sub_agent_id, entry.type, entry.keys]);
  return { received, asked };
}

describe('LLM mode: values stay with their clause', () => {
  it('gives both requests joined by 和 the values of their own clause', async () => {
    const query = '查询北京明天的天气和明天从北京到上海的航班';
    const { received, asked } = await turn(
      query,
      intentReply(query, [
        task('t1', 'weather_agent', { city: '北京', date: TOMORROW }),
        task('t2', 'flight_agent', { origin: '北京', destination: '上海', date: TOMORROW }),
      ]),
    );
    expect(asked).toEqual([]);
    expect(received).toEqual({
      weather: [{ city: '北京', date: TOMORROW }],
      flight: [{ origin: '北京', destination: '上海', date: TOMORROW }],
    });
  });

  it('does the same for two English requests joined by "and"', async () => {
    const query = 'weather in Beijing tomorrow and a flight from Beijing to Shanghai tomorrow';
    const { received, asked } = await turn(
      query,
      intentReply(query, [
        task('t1', 'weather_agent', { city: 'Beijing', date: TOMORROW }),
        task('t2', 'flight_agent', { origin: 'Beijing', destination: 'Shanghai', date: TOMORROW }),
      ]),
    );
    expect(asked).toEqual([]);
    expect(received).toEqual({
      weather: [{ city: 'Beijing', date: TOMORROW }],
      flight: [{ origin: 'Beijing', destination: 'Shanghai', date: TOMORROW }],
    });
  });

  it('keeps the values when the rewrite joins with 和 what the user wrote as two sentences', async () => {
    const { received, asked } = await turn(
      '明天北京天气怎么样？顺便看看明天北京飞上海的航班',
      intentReply('查询北京明天的天气和明天从北京到上海的航班', [
        task('t1', 'weather_agent', { city: '北京', date: TOMORROW }),
        task('t2', 'flight_agent', { origin: '北京', destination: '上海', date: TOMORROW }),
      ]),
    );
    expect(asked).toEqual([]);
    expect(received).toEqual({
      weather: [{ city: '北京', date: TOMORROW }],
      flight: [{ origin: '北京', destination: '上海', date: TOMORROW }],
    });
  });

  it('drops a value the draft gives one request from the other clause joined by 和', async () => {
    const query = '查询杭州明天的天气和12月3日从北京到上海的航班';
    const { received } = await turn(
      query,
      intentReply(query, [
        task('t1', 'weather_agent', { city: '上海', date: DECEMBER_3 }),
        task('t2', 'flight_agent', { origin: '北京', destination: '上海', date: DECEMBER_3 }),
      ]),
    );
    expect(received).toEqual({
      weather: [{ city: '杭州', date: TOMORROW }],
      flight: [{ origin: '北京', destination: '上海', date: DECEMBER_3 }],
    });
  });

  it('grounds values in the user’s own clause, not in a rewrite that moved them', async () => {
    // The user asks about Hangzhou's weather; the rewrite (and the draft) put Shanghai and December 3 into that request.
    const { received } = await turn(
      '查一下杭州明天的天气，再订一张12月3日从北京到上海的机票',
      intentReply('查询上海12月3日的天气和12月3日从北京到上海的航班', [
        task('t1', 'weather_agent', { city: '上海', date: DECEMBER_3 }),
        task('t2', 'flight_agent', { origin: '北京', destination: '上海', date: DECEMBER_3 }),
      ]),
    );
    expect(received).toEqual({
      weather: [{ city: '杭州', date: TOMORROW }],
      flight: [{ origin: '北京', destination: '上海', date: DECEMBER_3 }],
    });
  });
});
