/**
 * Whole turns in LLM mode over real HTTP: the scripted fake OpenAI server
 * behind the real gateway, the sample travel registry pointed at fake
 * sub-agents, the real graph, SQLite and SSE. Each turn's plan is compared
 * with the plan the offline matcher makes for the same query.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const AGENT_IDS = ['hotel_agent', 'limo_agent', 'flight_agent', 'weather_agent'];
const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const MIXED = '帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气';
const PARALLEL = '帮我订北京的酒店，明天入住，再告诉我北京明天的天气';
const BARE = '帮我订上海的酒店，后天入住，再告诉我上海后天的天气';

interface Fleet {
  agents: Record<'hotel' | 'limo' | 'flight' | 'weather', FakeAgent>;
  llm: TestSwitchboard;
  offline: TestSwitchboard;
  fake: FakeOpenAI;
  gateway: OpenAiCompatibleGateway;
  close(): Promise<void>;
}

async function startFleet(): Promise<Fleet> {
  const agents = {
    hotel: await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' })),
    limo: await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00', destination: '北京饭店' }, message: '王师傅将在7点接您。' })),
    flight: await startFakeAgent(jsonReply({ output: { flights: [] } })),
    weather: await startFakeAgent(
      sseReply({ progress: ['正在查询北京的天气…'], result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } }),
    ),
  };
  const yaml = sampleRegistry('agents_config.yaml', { 7101: agents.hotel.url, 7102: agents.limo.url, 7103: agents.flight.url, 7104: agents.weather.url }, { answerCacheTtlS: 0 });
  const fake = await startFakeOpenAI();
  const gateway = createLlmGateway({
    baseUrl: fake.baseUrl,
    model: 'fake-main',
    smallModel: 'fake-small',
    logger: silentLogger,
    timeoutMs: 3000,
    maxRetries: 2,
    breaker: false,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 20, random: () => 0.5 },
  });
  const llm = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  const offline = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  return {
    agents,
    llm,
    offline,
    fake,
    gateway,
    async close() {
      await llm.close();
      await offline.close();
      gateway.close();
      await fake.close();
      await Promise.all(Object.values(agents).map((agent) => agent.close()));
    },
  };
}

/** A valid intent reply; fields override the defaults. */
function intentReply(fields: Record<string, unknown>): ScriptedReplySpec {
  return {
    content: { kind: 'business', intent: [], confidence: 'high', reason: 'scripted', rewritten_query: '', user_friendly_message: '明白了！', ...fields },
    usage: false,
  };
}

function task(taskId: string, agent: string, inputs: Record<string, unknown>, dependencies: string[] = [], description = `处理${agent}`) {
  return { task_id: taskId, description, assigned_agent: agent, inputs, dependencies };
}

const MIXED_REPLY = intentReply({
  intent: ['hotel_agent', 'limo_agent', 'weather_agent'],
  rewritten_query: MIXED,
  user_friendly_message: '明白了！我将为您预订酒店（hotel_agent）、安排接机并查询天气。',
  task_plan: {
    sub_tasks: [
      task('task_1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW }),
      task('task_2', 'limo_agent', { airport: '首都机场', pickup_time: '早上7点', date: TOMORROW }, ['task_1']),
      task('task_3', 'weather_agent', { city: '北京', date: TOMORROW }),
    ],
    reasoning: '接机在酒店之后，天气独立',
  },
});

const SUMMARY_TEXT = '已为您预订北京饭店（东长安街33号，每晚880元）。王师傅将于明天早上7点在首都机场接您并送往酒店。北京明天天气晴，最高8度，最低零下2度，注意保暖。';

function summaryReply(text = SUMMARY_TEXT): ScriptedReplySpec {
  return { content: text, usage: false };
}

function completeFinal(events: readonly ResponseState[]): ResponseState {
  const final = events.find((event) => event.metadata.stage === 'final' && (event.metadata.state as { delta?: boolean } | undefined)?.delta !== true);
  if (!final) throw new Error(`no complete final event in: ${events.map((event) => event.metadata.stage).join(', ')}`);
  return final;
}

function deltas(events: readonly ResponseState[]): string[] {
  return events.filter((event) => event.metadata.stage === 'final' && (event.metadata.state as { delta?: boolean }).delta === true).map((event) => event.content);
}

interface PlanShape {
  task_type: string;
  tasks: { agent: string; after: string[]; status: string }[];
}

function planShape(events: readonly ResponseState[]): PlanShape {
  const plan = stageEvents(events, 'plan_done')[0]!.metadata.state!.task_plan as {
    task_type: string;
    sub_tasks: { task_id: string; assigned_agent: string; dependencies: string[]; status: string }[];
  };
  const agentOf = new Map(plan.sub_tasks.map((entry) => [entry.task_id, entry.assigned_agent]));
  return {
    task_type: plan.task_type,
    tasks: plan.sub_tasks
      .map((entry) => ({ agent: entry.assigned_agent, after: entry.dependencies.map((id) => agentOf.get(id)!).sort(), status: entry.status }))
      .sort((a, b) => a.agent.localeCompare(b.agent)),
  };
}

function expectNoInternalIds(events: readonly ResponseState[]): void {
  for (const event of events) for (const id of AGENT_IDS) expect(event.content).not.toContain(id);
}

function llmCalls(events: readonly ResponseState[]): number {
  return ((completeFinal(events).metadata.state as { llm?: { calls: number } }).llm?.calls) ?? -1;
}

describe('LLM mode turns', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(() => fleet.close());
  afterEach(() => fleet.fake.assertComplete());

  it('plans the three-intent mixed turn in one intent call, runs the transfer after the hotel, and streams the answer', async () => {
    // A clean multi-intent turn is not judged (verify.judge: on_doubt): intent and answer only.
    fleet.fake.push(MIXED_REPLY, summaryReply());
    const before = fleet.fake.requests.length;
    const events = await fleet.llm.chat(MIXED, { sessionId: 'llm-mixed-1' });
    expect(fleet.fake.requests.length - before).toBe(2);
    expect(llmCalls(events)).toBe(2);
    const [intentCall, answerCall] = fleet.fake.requests.slice(before);
    expect(intentCall!.stream).toBe(false);
    expect(intentCall!.response_format?.type).toBe('json_schema');
    expect(intentCall!.model).toBe('fake-main'); // long query → main model
    const system = intentCall!.messages[0]!.content;
    for (const id of AGENT_IDS) expect(system).toContain(`id: ${id}`);
    expect(system).toContain('帮我订北京的酒店'); // few-shot line from the card examples
    expect(intentCall!.messages[1]!.content).toContain('Today: 2026-11-22');
    expect(answerCall!.stream).toBe(true);
    expect(answerCall!.messages[1]!.content).toContain('王师傅');

    const shape = planShape(events);
    expect(shape.task_type).toBe('mixed');
    expect(shape.tasks.find((entry) => entry.agent === 'limo_agent')!.after).toEqual(['hotel_agent']);
    const hotelDone = events.findIndex((event) => event.metadata.stage === 'agent_done' && event.agent_id === 'hotel_agent');
    const limoStart = events.findIndex((event) => event.metadata.stage === 'agent_start' && event.agent_id === 'limo_agent');
    expect(limoStart).toBeGreaterThan(hotelDone);
    const limoCall = fleet.agents.limo.calls.at(-1)!.body as { upstream: Record<string, { agent: string; output: { booking_id: string } }>; inputs: Record<string, unknown> };
    expect(Object.values(limoCall.upstream)).toEqual([expect.objectContaining({ agent: 'hotel_agent', output: expect.objectContaining({ booking_id: 'HB-1' }) })]);
    expect(limoCall.inputs).toMatchObject({ airport: '首都机场', pickup_time: '早上7点', date: TOMORROW });
    expect((fleet.agents.hotel.calls.at(-1)!.body as { inputs: unknown }).inputs).toMatchObject({ city: '北京', check_in_date: TOMORROW });

    // The answer streamed in several deltas, then the complete answer.
    const parts = deltas(events);
    expect(parts.length).toBeGreaterThan(2);
    const final = completeFinal(events);
    expect(final.content).toBe(SUMMARY_TEXT);
    expect(parts.join('')).toBe(SUMMARY_TEXT);
    expect(events.indexOf(final)).toBeGreaterThan(events.findLastIndex((event) => (event.metadata.state as { delta?: boolean } | undefined)?.delta === true));
    expect(stageEvents(events, 'intent_done')[0]!.content).toContain('酒店服务'); // id in the model's message replaced by the name
    expectNoInternalIds(events);

    const offline = await fleet.offline.chat(MIXED, { sessionId: 'offline-mixed-1' });
    expect(shape).toEqual(planShape(offline));
  });

  it('plans two independent intents as parallel, like the offline matcher', async () => {
    fleet.fake.push(
      intentReply({
        intent: ['hotel_agent', 'weather_agent'],
        rewritten_query: PARALLEL,
        task_plan: { sub_tasks: [task('t1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW }), task('t2', 'weather_agent', { city: '北京' })] },
      }),
      summaryReply('北京饭店已订好，北京明天晴。'),
    );
    const events = await fleet.llm.chat(PARALLEL, { sessionId: 'llm-parallel-1' });
    expect(llmCalls(events)).toBe(2);
    const offline = await fleet.offline.chat(PARALLEL, { sessionId: 'offline-parallel-1' });
    expect(planShape(events)).toEqual(planShape(offline));
    expect(planShape(events).task_type).toBe('parallel');
  });

  it('accepts the bare seed-003 intent shape (capability names, no kind, no plan) and plans the rest offline', async () => {
    fleet.fake.push(
      {
        content: { intent: ['酒店服务', '天气查询'], confidence: 'high', reason: '用户要订酒店并查天气', rewritten_query: BARE, user_friendly_message: '明白了！我将为您预订酒店并查询天气。' },
        usage: false,
      },
      summaryReply('上海的酒店已订好，上海明天晴。'),
    );
    const events = await fleet.llm.chat(BARE, { sessionId: 'llm-bare-1' });
    expect(llmCalls(events)).toBe(2);
    const offline = await fleet.offline.chat(BARE, { sessionId: 'offline-bare-1' });
    expect(planShape(events)).toEqual(planShape(offline));
    expect(stageEvents(events, 'intent_done')[0]!.content).toBe('明白了！我将为您预订酒店并查询天气。');
  });

  it('parks a task missing keys with the same semantic_info as offline, then completes it next turn from memory', async () => {
    const hotelBefore = fleet.agents.hotel.calls.length;
    fleet.fake.push(
      intentReply({ intent: ['hotel_agent'], rewritten_query: '帮我订酒店', task_plan: { sub_tasks: [task('task_1', 'hotel_agent', {})] } }),
      summaryReply('请告诉我入住城市（例如北京、上海）和入住日期（例如明天）。'),
    );
    // A user seen for the first time: no usual city to offer.
    const first = await fleet.llm.chat('帮我订酒店', { sessionId: 'llm-missing-1', userId: 'first-time' });
    expect(fleet.agents.hotel.calls.length).toBe(hotelBefore);
    const info = completeFinal(first).metadata.semantic_info;
    expect(info).toEqual([
      { type: 'miss', sub_agent_id: 'hotel_agent', keys: ['city', 'check_in_date'], key_descriptions: ['入住城市', '入住日期'], fe_widgets_suggestion: ['city_selector', 'date_picker'],
        key_options: [expect.arrayContaining(['北京', '上海']), []] },
    ]);
    const offline = await fleet.offline.chat('帮我订酒店', { sessionId: 'offline-missing-1', userId: 'first-time' });
    expect(completeFinal(offline).metadata.semantic_info).toEqual(info);
    expect(planShape(first)).toEqual(planShape(offline));
    // The summary prompt asks for exactly the missing items, with example values.
    const summaryPrompt = fleet.fake.requests.at(-1)!.messages[1]!.content;
    expect(summaryPrompt).toContain('入住城市 (e.g. 北京, 上海, 广州)');
    expect(summaryPrompt).toContain(`入住日期 (e.g. 明天, ${TOMORROW})`);

    fleet.fake.push(
      intentReply({
        intent: ['hotel_agent'],
        rewritten_query: '帮我订酒店，北京，明天入住',
        confidence: 'medium',
        task_plan: { sub_tasks: [task('task_1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW })] },
      }),
      summaryReply('已为您预订北京饭店。'),
    );
    const second = await fleet.llm.chat('北京，明天', { sessionId: 'llm-missing-1', userId: 'first-time' });
    const memoryPrompt = fleet.fake.requests.at(-2)!.messages[1]!.content;
    expect(memoryPrompt).toContain('[1] user: 帮我订酒店');
    expect(memoryPrompt).toMatch(/waiting for information[\s\S]*hotel_agent \(酒店服务\): needs city/);
    expect(fleet.agents.hotel.calls.length).toBe(hotelBefore + 1);
    expect((fleet.agents.hotel.calls.at(-1)!.body as { inputs: unknown }).inputs).toMatchObject({ city: '北京', check_in_date: TOMORROW });
    expect(completeFinal(second).metadata.semantic_info ?? []).toEqual([]);
    expect(llmCalls(second)).toBe(2);
  });

  it('answers a greeting and a request for a human by the rules, without any model call', async () => {
    const before = fleet.fake.requests.length;
    const hello = await fleet.llm.chat('你好', { sessionId: 'llm-hello-1' });
    expect(hello.map((event) => event.metadata.stage)).toEqual(['intent_start', 'intent_done', 'final', 'done']);
    expect(completeFinal(hello).content).toContain('酒店服务');
    const human = await fleet.llm.chat('转人工', { sessionId: 'llm-hello-1' });
    expect(stageEvents(human, 'escalate')).toHaveLength(1);
    expect(fleet.fake.requests.length).toBe(before);
  });

  it('answers an out-of-scope question with the text of the intent call: one call, ids replaced by names', async () => {
    fleet.fake.push(
      intentReply({
        kind: 'simple',
        simple_kind: 'out_of_scope',
        intent: [],
        confidence: 'medium',
        answer: '抱歉，股票行情不在我的服务范围内。我可以帮您使用hotel_agent和weather_agent。',
        user_friendly_message: '抱歉，这超出了我的服务范围。',
      }),
    );
    const before = fleet.fake.requests.length;
    const events = await fleet.llm.chat('今天股票行情如何', { sessionId: 'llm-scope-1' });
    expect(fleet.fake.requests.length - before).toBe(1);
    expect(fleet.fake.requests.at(-1)!.model).toBe('fake-small'); // short query → small model
    expect(completeFinal(events).content).toBe('抱歉，股票行情不在我的服务范围内。我可以帮您使用酒店服务和天气查询。');
    expect(completeFinal(events).agent_id).toBe('supervisor');
    expectNoInternalIds(events);
  });

  it('serves a repeated question from the intent cache: only the answer call', async () => {
    const query = '帮我订上海的酒店，明天入住。';
    const reply = intentReply({
      intent: ['hotel_agent'],
      rewritten_query: query,
      task_plan: { sub_tasks: [task('task_1', 'hotel_agent', { city: '上海', check_in_date: TOMORROW })] },
    });
    fleet.fake.push(reply, summaryReply('已为您预订北京饭店。'));
    const first = await fleet.llm.chat(query, { sessionId: 'llm-cache-1', userId: 'cache-a' });
    expect(llmCalls(first)).toBe(2);
    fleet.fake.push(summaryReply('已为您预订北京饭店。'));
    const before = fleet.fake.requests.length;
    // Another session; full-width punctuation, spacing and case differ.
    const events = await fleet.llm.chat('  帮我订上海的酒店,  明天入住. ', { sessionId: 'llm-cache-2', userId: 'cache-b' });
    expect(fleet.fake.requests.length - before).toBe(1);
    expect(fleet.fake.requests.at(-1)!.stream).toBe(true);
    expect(llmCalls(events)).toBe(1);
    expect((fleet.agents.hotel.calls.at(-1)!.body as { inputs: unknown }).inputs).toMatchObject({ city: '上海', check_in_date: TOMORROW });
    // The first turn is now in that session's memory: the same words there are a new question.
    fleet.fake.push(reply, summaryReply('已为您预订北京饭店。'));
    const again = await fleet.llm.chat(query, { sessionId: 'llm-cache-1', userId: 'cache-a' });
    expect(llmCalls(again)).toBe(2);
  });

  it('drops an agent the registry does not have and plans the rest', async () => {
    fleet.fake.push(
      intentReply({
        intent: ['hotel_agent', 'train_agent'],
        rewritten_query: '帮我订北京的酒店，明天入住，再订一张去上海的火车票',
        user_friendly_message: '明白了！我将为您订酒店和火车票（train_agent）。',
        task_plan: { sub_tasks: [task('task_1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW }), task('task_2', 'train_agent', { to: '上海' }, ['task_1'])] },
      }),
      summaryReply('已为您预订北京饭店。火车票服务暂不支持。'),
    );
    const events = await fleet.llm.chat('帮我订北京的酒店，明天入住，再订一张去上海的火车票', { sessionId: 'llm-invented-1' });
    expect(planShape(events).tasks.map((entry) => entry.agent)).toEqual(['hotel_agent']);
    const intentDone = stageEvents(events, 'intent_done')[0]!;
    expect(intentDone.content).not.toContain('train');
    expect(intentDone.content).not.toContain('火车票');
    expect(completeFinal(events).content).toContain('北京饭店');
  });

  it('drops an invented key and a key value the user never gave; the offline reading fills the key', async () => {
    fleet.fake.push(
      intentReply({
        intent: ['hotel_agent'],
        rewritten_query: '帮我订北京的酒店，明天入住',
        task_plan: { sub_tasks: [task('task_1', 'hotel_agent', { city: '上海', check_in_date: TOMORROW, breakfast: 'yes', nights: 3 })] },
      }),
      summaryReply('已为您预订北京饭店。'),
    );
    await fleet.llm.chat('帮我订北京的酒店，明天入住', { sessionId: 'llm-values-1' });
    const inputs = (fleet.agents.hotel.calls.at(-1)!.body as { inputs: Record<string, unknown> }).inputs;
    expect(inputs).toMatchObject({ city: '北京', check_in_date: TOMORROW });
    expect(inputs).not.toHaveProperty('breakfast');
    expect(inputs).not.toHaveProperty('nights');
  });
});
