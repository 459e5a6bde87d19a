/**
 * Per-turn budgets (docs/api.md#registry-file `supervisor.budgets`) over real HTTP: the
 * sample travel registry with budgets set, fake sub-agents, SQLite and SSE;
 * the strict fake OpenAI server behind the real gateway for the token budget.
 * Each budget, once reached, stops the remaining work; the answer says what
 * was not done and why; the stream still ends with its final and done events;
 * `/metrics` counts the stop.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { hangReply, jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
/** Three sub-tasks: hotel, airport transfer (after the hotel), weather. */
const MIXED = '帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气';
/** Two independent sub-tasks: hotel and weather. */
const PARALLEL = '帮我订北京的酒店，明天入住，再告诉我北京明天的天气';

interface Agents {
  hotel: FakeAgent;
  limo: FakeAgent;
  flight: FakeAgent;
  weather: FakeAgent;
}

const HOTEL_DONE = jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' });
const LIMO_DONE = jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00', destination: '北京饭店' }, message: '王师傅将在7点接您。' });
const WEATHER_DONE = sseReply({
  progress: ['正在查询北京的天气…'],
  result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' },
});

async function startAgents(replies: Partial<Record<keyof Agents, Parameters<typeof startFakeAgent>[0]>>): Promise<Agents> {
  return {
    hotel: await startFakeAgent(replies.hotel ?? HOTEL_DONE),
    limo: await startFakeAgent(replies.limo ?? LIMO_DONE),
    flight: await startFakeAgent(replies.flight ?? jsonReply()),
    weather: await startFakeAgent(replies.weather ?? WEATHER_DONE),
  };
}

/** The sample registry pointed at the fakes, with `budgets` added under `supervisor`. */
function registryWithBudgets(agents: Agents, budgets: string): string {
  const yaml = sampleRegistry('agents_config.yaml', { 7101: agents.hotel.url, 7102: agents.limo.url, 7103: agents.flight.url, 7104: agents.weather.url });
  const withBudgets = yaml.replace(/^(supervisor:\n)/m, `$1  budgets: ${budgets}\n`);
  if (withBudgets === yaml) throw new Error('the sample registry has no supervisor section to add budgets to');
  return withBudgets;
}

async function closeAll(board: TestSwitchboard | undefined, agents: Agents | undefined): Promise<void> {
  await board?.close();
  await Promise.all(Object.values(agents ?? {}).map((agent: FakeAgent) => agent.close()));
}

function completeFinal(events: readonly ResponseState[]): ResponseState {
  const final = events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true);
  if (!final) throw new Error(`no complete final event in: ${events.map((event) => event.metadata.stage).join(', ')}`);
  return final;
}

function taskStates(event: ResponseState): { task_id: string; agent: string; status: string; reason?: string }[] {
  return (event.metadata.state?.tasks ?? []) as { task_id: string; agent: string; status: string; reason?: string }[];
}

/** The value of one labelled counter in the Prometheus text of `GET /metrics` (0 when absent). */
async function counter(board: TestSwitchboard, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${board.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** The stream ended properly: a complete final event, then exactly one `done`, last. */
function expectCleanEnd(events: readonly ResponseState[]): void {
  const last = events.at(-1)!;
  expect(last.type).toBe('done');
  expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
  expect(events.indexOf(completeFinal(events))).toBeLessThan(events.length - 1);
}

describe('budgets.max_subtasks', () => {
  let agents: Agents;
  let board: TestSwitchboard;
  beforeAll(async () => {
    agents = await startAgents({});
    board = await startTestSwitchboard({ registryYaml: registryWithBudgets(agents, '{ max_subtasks: 2 }'), now: () => NOW });
  });
  afterAll(() => closeAll(board, agents));

  it('runs only the first two sub-tasks, says which one was not done and why, and counts the stop', async () => {
    const events = await board.chat(MIXED, { sessionId: 'budget-subtasks' });
    expectCleanEnd(events);
    // The plan keeps hotel → transfer (a dependency comes before its dependent); the weather is cut.
    expect(agents.hotel.calls).toHaveLength(1);
    expect(agents.limo.calls).toHaveLength(1);
    expect(agents.weather.calls).toHaveLength(0);

    const final = completeFinal(events);
    expect(final.content).toContain('单次最多处理2项');
    expect(final.content).toContain('「天气查询」');
    expect(final.content).toContain('北京饭店');
    const weather = taskStates(final).find((task) => task.agent === 'weather_agent');
    expect(weather).toMatchObject({ status: 'skipped', reason: 'max_subtasks' });
    expect(final.metadata.state?.budget_stops).toEqual(['max_subtasks']);
    const failed = stageEvents(events, 'agent_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ agent_id: 'weather_agent', metadata: { state: { code: 'max_subtasks' } } });
    expect(events.at(-1)!.metadata.state?.budget_stops).toEqual(['max_subtasks']);

    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="budget_subtasks"')).toBe(1);
  });

  it('leaves a plan within the budget alone', async () => {
    const before = await counter(board, 'switchboard_guard_stops_total', 'guard="budget_subtasks"');
    const events = await board.chat(PARALLEL, { sessionId: 'budget-subtasks-ok' });
    expectCleanEnd(events);
    expect(stageEvents(events, 'agent_failed')).toHaveLength(0);
    expect(completeFinal(events).metadata.state?.budget_stops).toBeUndefined();
    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="budget_subtasks"')).toBe(before);
  });
});

describe('budgets.max_turn_ms', () => {
  let agents: Agents;
  let board: TestSwitchboard;
  beforeAll(async () => {
    // The hotel never answers; the transfer waits on it; the weather answers at once.
    agents = await startAgents({ hotel: hangReply() });
    board = await startTestSwitchboard({ registryYaml: registryWithBudgets(agents, '{ max_turn_ms: 1000 }'), now: () => NOW });
  });
  afterAll(() => closeAll(board, agents));

  it('aborts the call in flight at the deadline, starts nothing more, and answers with what finished', async () => {
    const started = Date.now();
    const events = await board.chat(MIXED, { sessionId: 'budget-deadline' });
    const elapsed = Date.now() - started;
    expectCleanEnd(events);
    // Well before the agents' own 10 s timeout, and before the grace period after the deadline.
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(4000);
    await agents.hotel.waitForAborts(1, 2000);
    expect(agents.limo.calls).toHaveLength(0);
    expect(agents.weather.calls).toHaveLength(1);

    const final = completeFinal(events);
    expect(final.content).toContain('时间上限（1秒）');
    expect(final.content).toContain('「酒店服务」');
    expect(final.content).toContain('「机场接送机服务」');
    expect(final.content).toContain('北京明天晴');
    const states = taskStates(final);
    expect(states.find((task) => task.agent === 'hotel_agent')).toMatchObject({ status: 'failed', reason: 'max_turn_ms' });
    expect(states.find((task) => task.agent === 'limo_agent')).toMatchObject({ status: 'skipped', reason: 'max_turn_ms' });
    expect(states.find((task) => task.agent === 'weather_agent')).toMatchObject({ status: 'completed' });
    expect(final.metadata.state?.budget_stops).toEqual(['max_turn_ms']);
    const codes = stageEvents(events, 'agent_failed').map((event) => [event.agent_id, event.metadata.state?.code]);
    expect(codes).toEqual(expect.arrayContaining([['hotel_agent', 'max_turn_ms'], ['limo_agent', 'max_turn_ms']]));
    // The turn itself ran to its end (not cancelled), with one task done and the others stopped.
    expect(events.at(-1)!.metadata.state?.outcome).toBe('partial');

    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="budget_turn_ms"')).toBe(1);
  });

  it('keeps the task record of the aborted call as cancelled for the time budget', async () => {
    const events = await board.chat(PARALLEL, { sessionId: 'budget-deadline-2' });
    expectCleanEnd(events);
    const hotelTask = taskStates(completeFinal(events)).find((task) => task.agent === 'hotel_agent')!;
    const record = await board.switchboard.storage.tasks.getTask(hotelTask.task_id);
    expect(record).toMatchObject({ status: 'cancelled', detail: 'max_turn_ms' });
  });
});

describe('budgets.max_llm_tokens', () => {
  let agents: Agents;
  let board: TestSwitchboard;
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  beforeAll(async () => {
    agents = await startAgents({});
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
    board = await startTestSwitchboard({ registryYaml: registryWithBudgets(agents, '{ max_llm_tokens: 6000 }'), llm: gateway, now: () => NOW });
  });
  afterEach(() => fake.assertComplete());
  afterAll(async () => {
    await closeAll(board, agents);
    gateway.close();
    await fake.close();
  });

  it('makes no model call once the turn used its tokens, answers from the template, and says so', async () => {
    // The intent call reports more tokens than the turn may use: the verify and answer calls are never made
    // (the strict fake would fail the test on a call it has no reply for).
    fake.push({
      content: {
        kind: 'business',
        intent: ['hotel_agent', 'weather_agent'],
        confidence: 'high',
        reason: 'scripted',
        rewritten_query: PARALLEL,
        user_friendly_message: '明白了！',
        task_plan: {
          sub_tasks: [
            { task_id: 'task_1', description: '订北京的酒店', assigned_agent: 'hotel_agent', inputs: { city: '北京', check_in_date: TOMORROW }, dependencies: [] },
            { task_id: 'task_2', description: '查询北京明天的天气', assigned_agent: 'weather_agent', inputs: { city: '北京', date: TOMORROW }, dependencies: [] },
          ],
          reasoning: '两项独立',
        },
      },
      usage: { prompt_tokens: 5000, completion_tokens: 1200 },
    });
    const events = await board.chat(PARALLEL, { sessionId: 'budget-tokens' });
    expectCleanEnd(events);
    expect(fake.requests).toHaveLength(1);
    expect(agents.hotel.calls).toHaveLength(1);
    expect(agents.weather.calls).toHaveLength(1);

    const final = completeFinal(events);
    expect(final.content).toContain('模型用量已达上限');
    expect(final.content).toContain('北京饭店');
    expect(final.content).toContain('北京明天晴');
    expect(final.metadata.state?.budget_stops).toEqual(['max_llm_tokens']);
    expect(final.metadata.state?.llm).toMatchObject({ calls: 1, prompt_tokens: 5000, completion_tokens: 1200 });
    // Nothing streamed from a model: the answer is the template's.
    expect(events.filter((event) => event.metadata.stage === 'final' && event.metadata.state?.delta === true)).toHaveLength(0);

    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="budget_llm_tokens"')).toBe(1);
  });
});

describe('budgets.max_turn_ms with a model that does not answer', () => {
  let agents: Agents;
  let board: TestSwitchboard;
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  beforeAll(async () => {
    agents = await startAgents({});
    fake = await startFakeOpenAI();
    // The model's own timeout is far longer than the turn's time budget.
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger, timeoutMs: 20_000, maxRetries: 0, breaker: false });
    board = await startTestSwitchboard({ registryYaml: registryWithBudgets(agents, '{ max_turn_ms: 1000 }'), llm: gateway, now: () => NOW });
  });
  afterEach(() => fake.assertComplete());
  afterAll(async () => {
    await closeAll(board, agents);
    gateway.close();
    await fake.close();
  });

  it('cuts the model call at the deadline, sends no sub-task, and still ends the stream with an answer that says why', async () => {
    fake.push({ hang: true });
    const started = Date.now();
    const events = await board.chat(PARALLEL, { sessionId: 'budget-deadline-model' });
    expect(Date.now() - started).toBeLessThan(4000);
    expectCleanEnd(events);
    expect(fake.requests).toHaveLength(1);
    expect(agents.hotel.calls).toHaveLength(0);
    expect(agents.weather.calls).toHaveLength(0);
    const final = completeFinal(events);
    expect(final.content).toContain('时间上限（1秒）');
    expect(final.content).toContain('「酒店服务」');
    expect(final.content).toContain('「天气查询」');
    expect(taskStates(final).map((task) => [task.agent, task.status, task.reason])).toEqual(
      expect.arrayContaining([
        ['hotel_agent', 'skipped', 'max_turn_ms'],
        ['weather_agent', 'skipped', 'max_turn_ms'],
      ]),
    );
    expect(final.metadata.state?.budget_stops).toEqual(['max_turn_ms']);
    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="budget_turn_ms"')).toBe(1);
  });
});
