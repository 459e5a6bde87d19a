import { describe, expect, it } from 'vitest';
import { card, snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { DraftSubTask } from './draft-schema.js';
import type { IntentResult } from '../intent/types.js';
import { silentLogger } from '../logger.js';
import type { AgentCard } from '../registry/types.js';
import { emptyMemory, type SessionMemory } from '../graph/state.js';
import { createLlmPlanner } from './llm-planner.js';
import { createOfflinePlanner } from './offline-planner.js';
import type { PlanRequest } from './types.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const MIXED = '帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气';

function cards(): AgentCard[] {
  return travelCards().map((entry) =>
    entry.id === 'hotel_agent' ? { ...entry, inputSchema: { type: 'object', properties: { city: {}, check_in_date: {}, nights: {} } } } : entry,
  );
}

function request(query: string, subTasks: DraftSubTask[] | undefined, options: { memory?: SessionMemory; snapshotCards?: AgentCard[]; intents?: string[] } = {}): PlanRequest {
  const intentAgents = options.intents ?? [...new Set((subTasks ?? []).map((entry) => entry.assigned_agent))];
  const intent: IntentResult = {
    kind: 'business',
    intents: intentAgents.map((agentId) => ({ agentId, score: 0.9 })),
    confidence: 'high',
    reason: 'test',
    rewrittenQuery: query,
    userFriendlyMessage: '',
    ...(subTasks ? { draftPlan: { query, task_plan: { sub_tasks: subTasks } } } : {}),
  };
  return {
    query,
    intents: intent.intents,
    ...(intent.draftPlan ? { draft: intent.draftPlan } : {}),
    snapshot: snapshotOf(options.snapshotCards ?? cards()),
    memory: options.memory ?? emptyMemory(),
    now: NOW,
    planId: 'plan_test',
    signal: new AbortController().signal,
    usage: { calls: [] },
  };
}

function sub(taskId: string, agent: string, inputs: Record<string, unknown>, dependencies: string[] = []) {
  return { task_id: taskId, description: `DRAFT ${agent}`, assigned_agent: agent, inputs, dependencies };
}

const planner = createLlmPlanner({ fallback: createOfflinePlanner(), logger: silentLogger });

describe('LLM planner', () => {
  it('keeps a sound draft: ids renumbered, depends_on edges, task type, grounded values', async () => {
    const { plan, invalidKeys } = await planner.plan(
      request(MIXED, [
        sub('a', 'hotel_agent', { city: '北京', check_in_date: TOMORROW }),
        sub('b', 'limo_agent', { airport: '首都机场', pickup_time: '早上7点' }, ['a']),
        sub('c', 'weather_agent', { city: '北京' }),
      ]),
    );
    expect(plan.sub_tasks.map((entry) => [entry.task_id, entry.assigned_agent, entry.dependencies])).toEqual([
      ['plan_test_task_1', 'hotel_agent', []],
      ['plan_test_task_2', 'limo_agent', ['plan_test_task_1']],
      ['plan_test_task_3', 'weather_agent', []],
    ]);
    expect(plan.task_type).toBe('mixed');
    expect(plan.sub_tasks[0]!.description).toBe('DRAFT hotel_agent');
    expect(plan.sub_tasks[1]!.inputs).toMatchObject({ airport: '首都机场', pickup_time: '早上7点' });
    expect(invalidKeys).toEqual({});
  });

  it('drops agents not enabled, dependencies depends_on does not allow, and adds the edges it requires', async () => {
    const snapshotCards = [...cards(), card({ id: 'train_agent', name: '火车票', description: 'trains', enabled: false })];
    const { plan } = await planner.plan(
      request(MIXED, [
        sub('t1', 'weather_agent', { city: '北京' }, ['t2']),
        sub('t2', 'hotel_agent', { city: '北京' }, ['t1']),
        sub('t3', 'limo_agent', {}, []),
        sub('t4', 'train_agent', {}),
        sub('t5', 'ghost_agent', {}),
      ], { snapshotCards }),
    );
    const agentOf = new Map(plan.sub_tasks.map((entry) => [entry.task_id, entry.assigned_agent]));
    expect(plan.sub_tasks.map((entry) => [entry.assigned_agent, entry.dependencies.map((id) => agentOf.get(id))])).toEqual([
      ['weather_agent', []],
      ['hotel_agent', []],
      ['limo_agent', ['hotel_agent']],
    ]);
  });

  it('drops invented keys and values the conversation does not support, then fills keys as the offline planner does', async () => {
    const { plan } = await planner.plan(
      request('帮我订北京的酒店，明天入住，住两晚', [sub('t1', 'hotel_agent', { city: '上海', check_in_date: '2026-12-01', breakfast: true, nights: 2 })]),
    );
    expect(plan.sub_tasks[0]!.inputs).toEqual({ city: '北京', check_in_date: TOMORROW });
  });

  it('accepts normalised dates and numbers that the text supports, and values from earlier turns', async () => {
    const memory: SessionMemory = {
      ...emptyMemory(),
      history: [{ query: '我想去上海', rewrittenQuery: '我想去上海', answer: '', agents: [] }],
    };
    const readOnly = cards().map((entry) => ({ ...entry, sideEffects: false }));
    const draft = [sub('t1', 'hotel_agent', { city: '上海', check_in_date: '2026-11-24', nights: 3 })];
    const { plan } = await planner.plan(request('帮我订那边的酒店，后天入住，住3晚', draft, { memory, snapshotCards: readOnly }));
    expect(plan.sub_tasks[0]!.inputs).toEqual({ city: '上海', check_in_date: '2026-11-24', nights: 3 });

    // A booking (side effects) takes values only from its own words or the answer to its parked question.
    const booking = await planner.plan(request('帮我订那边的酒店，后天入住，住3晚', draft, { memory }));
    expect(booking.plan.sub_tasks[0]!.inputs).toEqual({ check_in_date: '2026-11-24', nights: 3 });
  });

  it('drops a value the query gives only in another clause, as the offline planner does', async () => {
    const query = '帮我订个酒店，再查一下明天从北京到上海的机票';
    const draft = [sub('t1', 'hotel_agent', { city: '上海', check_in_date: TOMORROW }), sub('t2', 'flight_agent', { origin: '北京', destination: '上海', date: TOMORROW })];
    const { plan } = await planner.plan(request(query, draft));
    const inputsOf = (agent: string) => plan.sub_tasks.find((task) => task.assigned_agent === agent)!.inputs;
    expect(inputsOf('hotel_agent')).toEqual({});
    expect(inputsOf('flight_agent')).toEqual({ origin: '北京', destination: '上海', date: TOMORROW });
    expect(plan.sub_tasks.find((task) => task.assigned_agent === 'hotel_agent')!.description).toBe('DRAFT hotel_agent');

    const weatherFirst = '查一下杭州明天的天气，再订一张12月3日从北京到上海的机票';
    const leaky = [sub('t1', 'weather_agent', { city: '上海', date: '2026-12-03' }), sub('t2', 'flight_agent', { origin: '北京', destination: '上海', date: '2026-12-03' })];
    const second = await planner.plan(request(weatherFirst, leaky));
    const weather = second.plan.sub_tasks.find((task) => task.assigned_agent === 'weather_agent')!;
    expect(weather.inputs).toEqual({ city: '杭州' });
  });

  it('gives two requests joined by 和 in one clause the values of their own part', async () => {
    const query = '查询北京明天的天气和明天从北京到上海的航班';
    const { plan } = await planner.plan(
      request(query, [sub('t1', 'weather_agent', { city: '北京' }), sub('t2', 'flight_agent', { origin: '北京', destination: '上海', date: TOMORROW })]),
    );
    const inputsOf = (agent: string) => plan.sub_tasks.find((task) => task.assigned_agent === agent)!.inputs;
    expect(inputsOf('weather_agent')).toEqual({ city: '北京' });
    expect(inputsOf('flight_agent')).toEqual({ origin: '北京', destination: '上海', date: TOMORROW });

    const leaky = await planner.plan(request('查询杭州明天的天气和12月3日从北京到上海的航班', [sub('t1', 'weather_agent', { city: '上海' }), sub('t2', 'flight_agent', { origin: '北京' })]));
    expect(leaky.plan.sub_tasks.find((task) => task.assigned_agent === 'weather_agent')!.inputs).toEqual({ city: '杭州' });
  });

  it('grounds values in what the user typed when the rewrite moved them to another request', async () => {
    const typed = '查一下杭州明天的天气，再订一张12月3日从北京到上海的机票';
    const draft = [sub('t1', 'weather_agent', { city: '上海' }), sub('t2', 'flight_agent', { origin: '北京', destination: '上海', date: '2026-12-03' })];
    const base = request('查询上海12月3日的天气和12月3日从北京到上海的航班', draft);
    const { plan } = await planner.plan({ ...base, turnQuery: typed });
    const inputsOf = (agent: string) => plan.sub_tasks.find((task) => task.assigned_agent === agent)!.inputs;
    expect(inputsOf('weather_agent')).toEqual({ city: '杭州' });
    expect(inputsOf('flight_agent')).toEqual({ origin: '北京', destination: '上海', date: '2026-12-03' });
  });

  it('lets a parked booking take the values of the answer to its question', async () => {
    const memory: SessionMemory = {
      ...emptyMemory(),
      pending: [{ agent_id: 'hotel_agent', description: '帮我订个酒店', inputs: {}, missing_keys: ['city', 'check_in_date'] }],
    };
    const base = request('帮我订个酒店，上海，后天', [sub('t1', 'hotel_agent', { city: '上海', check_in_date: '2026-11-24' })], { memory });
    const { plan } = await planner.plan({ ...base, turnQuery: '上海，后天' });
    expect(plan.sub_tasks[0]!.inputs).toEqual({ city: '上海', check_in_date: '2026-11-24' });
  });

  it('describes a task in the user\'s words when the draft\'s description states a value the user never gave', async () => {
    const invented = { task_id: 't1', description: '订北京的酒店，12月1日入住，预算800元', assigned_agent: 'hotel_agent', inputs: { city: '北京', check_in_date: TOMORROW }, dependencies: [] };
    const { plan } = await planner.plan(request('帮我订北京的酒店，明天入住', [invented]));
    expect(plan.sub_tasks[0]!.inputs).toEqual({ city: '北京', check_in_date: TOMORROW });
    expect(plan.sub_tasks[0]!.description).not.toMatch(/12月1日|800/);

    // A parked booking answered this turn: the model restates the answer with a date of its own.
    const memory: SessionMemory = {
      ...emptyMemory(),
      pending: [{ agent_id: 'hotel_agent', description: '帮我订个酒店', inputs: { city: '上海' }, missing_keys: ['check_in_date'] }],
    };
    const restated = { ...invented, description: '订上海的酒店，2026-12-01入住', inputs: { city: '上海', check_in_date: '2026-11-24' } };
    const base = request('后天', [restated], { memory });
    const parked = await planner.plan({ ...base, query: '帮我订上海的酒店，2026-12-01入住，后天', turnQuery: '后天' });
    expect(parked.plan.sub_tasks[0]!.inputs).toEqual({ city: '上海', check_in_date: '2026-11-24' });
    expect(parked.plan.sub_tasks[0]!.description).toBe('帮我订个酒店，后天');

    // An agent the draft forgot is described by the offline reading of the rewrite, unless that states a value the user never gave.
    const forgotten = request('查天气', [sub('t1', 'hotel_agent', {})], { intents: ['hotel_agent', 'weather_agent'] });
    const rewritten = await planner.plan({ ...forgotten, query: '订酒店，再查北京12月1日的天气', turnQuery: '订酒店，再查天气' });
    expect(rewritten.plan.sub_tasks.find((task) => task.assigned_agent === 'weather_agent')!.description).not.toMatch(/12月1日|北京/);

    // A description whose values all come from the user is kept.
    const grounded = { ...invented, description: '订北京的酒店，明天入住' };
    expect((await planner.plan(request('帮我订北京的酒店，明天入住', [grounded]))).plan.sub_tasks[0]!.description).toBe('订北京的酒店，明天入住');
  });

  it('gives each of several values the user joined its own read-only task, and asks a booking which one', async () => {
    const weather = await planner.plan(request('北京和上海明天的天气', [sub('t1', 'weather_agent', { city: '北京' }), sub('t2', 'weather_agent', { city: '上海' })]));
    expect(weather.plan.sub_tasks.map((task) => [task.assigned_agent, task.inputs.city])).toEqual([
      ['weather_agent', '北京'],
      ['weather_agent', '上海'],
    ]);

    const booking = await planner.plan(request('帮我订北京和上海的酒店，明天入住', [sub('t1', 'hotel_agent', { city: '北京', check_in_date: TOMORROW })]));
    expect(booking.plan.sub_tasks).toHaveLength(1);
    expect(booking.plan.sub_tasks[0]!.inputs.city).toBeUndefined();
    expect(booking.invalidKeys[booking.plan.sub_tasks[0]!.task_id]).toEqual([expect.objectContaining({ key: 'city', several: ['北京', '上海'] })]);
  });

  it('adds intents the draft forgot and keeps invalid values reported', async () => {
    const { plan, invalidKeys } = await planner.plan(
      request('帮我订北京的酒店，13月40日入住，再看看北京天气', [sub('t1', 'hotel_agent', { city: '北京' })], { intents: ['hotel_agent', 'weather_agent'] }),
    );
    expect(plan.sub_tasks.map((entry) => entry.assigned_agent)).toEqual(['hotel_agent', 'weather_agent']);
    expect(plan.task_type).toBe('parallel');
    expect(invalidKeys.plan_test_task_1).toEqual([expect.objectContaining({ key: 'check_in_date' })]);
  });

  it('falls back to the offline planner without a draft or with no usable agent', async () => {
    const offline = createOfflinePlanner();
    const noDraft = request('帮我订北京的酒店，明天入住', undefined, { intents: ['hotel_agent'] });
    expect(await planner.plan(noDraft)).toEqual(await offline.plan(noDraft));
    const ghost = request('帮我订火车票', [sub('t1', 'ghost_agent', {})], { intents: [] });
    expect((await planner.plan(ghost)).plan.sub_tasks).toEqual([]);
  });
});
