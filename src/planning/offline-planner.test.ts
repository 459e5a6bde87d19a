import { describe, expect, it } from 'vitest';
import { card, keySpec, snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { RankedIntent } from '../intent/types.js';
import type { AgentCard } from '../registry/types.js';
import { emptyMemory, type SessionMemory } from '../graph/state.js';
import { createOfflinePlanner } from './offline-planner.js';
import { buildSubTasks } from './sub-tasks.js';
import type { PlanRequest } from './types.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const [hotel, limo, flight, weather] = travelCards() as [AgentCard, AgentCard, AgentCard, AgentCard];

function intents(...agentIds: string[]): RankedIntent[] {
  return agentIds.map((agentId, index) => ({ agentId, score: 1 - index / 10 }));
}

function request(query: string, agentIds: string[], options: { cards?: AgentCard[]; memory?: Partial<SessionMemory> } = {}): PlanRequest {
  return {
    query,
    intents: intents(...agentIds),
    snapshot: snapshotOf(options.cards ?? [hotel, limo, flight, weather]),
    memory: { ...emptyMemory(), ...options.memory },
    now: NOW,
    planId: 'plan_20261122_abcd1234',
    signal: new AbortController().signal,
    usage: { calls: [] },
  };
}

const planner = createOfflinePlanner();

describe('createOfflinePlanner', () => {
  it('plans one task per agent with inputs extracted from the query', async () => {
    const { plan, invalidKeys } = await planner.plan(request('帮我订北京的酒店，再告诉我北京明天的天气', ['hotel_agent', 'weather_agent']));
    expect(plan.plan_id).toBe('plan_20261122_abcd1234');
    expect(plan.task_type).toBe('parallel');
    expect(plan.total_tasks).toBe(2);
    expect(plan.missing_semantic_keys).toEqual([]);
    expect(plan.sub_tasks.map((task) => [task.task_id, task.assigned_agent, task.status])).toEqual([
      ['plan_20261122_abcd1234_task_1', 'hotel_agent', 'pending'],
      ['plan_20261122_abcd1234_task_2', 'weather_agent', 'pending'],
    ]);
    expect(plan.sub_tasks[0]!.inputs).toEqual({ city: '北京', check_in_date: TOMORROW });
    expect(plan.sub_tasks[1]!.inputs).toEqual({ city: '北京' });
    expect(invalidKeys).toEqual({});
  });

  it('adds a dependency only when both agents are in the plan, and orders the plan by it', async () => {
    const both = await planner.plan(request('安排明天早上7点首都机场接机，再帮我订北京的酒店', ['limo_agent', 'hotel_agent']));
    const [first, second] = both.plan.sub_tasks;
    expect(first!.assigned_agent).toBe('hotel_agent');
    expect(second!.assigned_agent).toBe('limo_agent');
    expect(second!.dependencies).toEqual([first!.task_id]);
    expect(first!.dependencies).toEqual([]);
    expect(both.plan.task_type).toBe('sequential');

    const alone = await planner.plan(request('安排明天早上7点首都机场接机', ['limo_agent']));
    expect(alone.plan.sub_tasks).toHaveLength(1);
    expect(alone.plan.sub_tasks[0]!.dependencies).toEqual([]);
    expect(alone.plan.sub_tasks[0]!.inputs).toEqual({ airport: '首都机场', pickup_time: '早上7点' });
  });

  it('classifies a chain beside an independent task as mixed', async () => {
    const { plan } = await planner.plan(request('订北京的酒店，明天早上7点首都机场接机，北京明天天气', ['hotel_agent', 'limo_agent', 'weather_agent']));
    expect(plan.task_type).toBe('mixed');
  });

  it('fills a parked task from slot memory, but lets the query win', async () => {
    const pending = [{ agent_id: 'weather_agent', description: '', inputs: {}, missing_keys: ['city'] }];
    const memory = { known_values: { city: '上海', check_in_date: '2026-12-01' }, pending };
    const filled = await planner.plan(request('明天天气怎么样', ['weather_agent'], { memory }));
    expect(filled.plan.sub_tasks[0]!.inputs).toEqual({ city: '上海' });

    const overridden = await planner.plan(request('北京的天气', ['weather_agent'], { memory }));
    expect(overridden.plan.sub_tasks[0]!.inputs).toEqual({ city: '北京' });
  });

  it('never fills a parked task with side effects from slot memory: only its own inputs and the answer count', async () => {
    const pending = [{ agent_id: 'hotel_agent', description: '', inputs: { check_in_date: '2026-12-01' }, missing_keys: ['city'] }];
    const memory = { known_values: { city: '上海', check_in_date: '2026-12-05' }, pending };
    const filled = await planner.plan(request('帮我订酒店', ['hotel_agent'], { memory }));
    expect(filled.plan.sub_tasks[0]!.inputs).toEqual({ check_in_date: '2026-12-01' });

    const answered = await planner.plan(request('帮我订酒店，北京', ['hotel_agent'], { memory }));
    expect(answered.plan.sub_tasks[0]!.inputs).toEqual({ city: '北京', check_in_date: '2026-12-01' });
  });

  it('never fills a fresh request (no parked task) from slot memory', async () => {
    const memory = { known_values: { city: '上海', check_in_date: '2026-12-01' } };
    const { plan } = await planner.plan(request('帮我订酒店', ['hotel_agent'], { memory }));
    expect(plan.sub_tasks[0]!.inputs).toEqual({});
  });

  it('reuses the inputs of the parked task of the same agent before slot memory', async () => {
    const memory: Partial<SessionMemory> = {
      pending: [{ agent_id: 'hotel_agent', description: '酒店服务：帮我订北京的酒店', inputs: { city: '北京', room: 'twin' }, missing_keys: ['check_in_date'] }],
      known_values: { city: '上海' },
    };
    const { plan } = await planner.plan(request('明天', ['hotel_agent'], { memory }));
    expect(plan.sub_tasks[0]!.inputs).toEqual({ city: '北京', room: 'twin', check_in_date: TOMORROW });
  });

  it('keeps an invalid extracted key unfilled (not from memory, not from the parked task) and reports it', async () => {
    const memory: Partial<SessionMemory> = {
      pending: [{ agent_id: 'hotel_agent', description: '', inputs: { check_in_date: '2026-12-02' }, missing_keys: [] }],
      known_values: { check_in_date: '2026-12-01' },
    };
    const { plan, invalidKeys } = await planner.plan(request('2月30号入住北京的酒店', ['hotel_agent'], { memory }));
    const task = plan.sub_tasks[0]!;
    expect(task.inputs).toEqual({ city: '北京' });
    expect(invalidKeys).toEqual({ [task.task_id]: [{ key: 'check_in_date', raw: '2月30号', reason: expect.any(String) }] });
  });

  it('drops disabled and unknown agents', async () => {
    const disabledWeather: AgentCard = { ...weather, enabled: false };
    const { plan } = await planner.plan(
      request('订北京的酒店，北京明天天气', ['hotel_agent', 'weather_agent', 'ghost_agent'], { cards: [hotel, limo, flight, disabledWeather] }),
    );
    expect(plan.sub_tasks.map((task) => task.assigned_agent)).toEqual(['hotel_agent']);
    expect(plan.total_tasks).toBe(1);
  });

  it('collapses duplicate intents of one agent into one task', async () => {
    const { plan } = await planner.plan(request('订北京的酒店，还有上海的酒店', ['hotel_agent', 'weather_agent', 'hotel_agent']));
    expect(plan.sub_tasks.map((task) => task.assigned_agent)).toEqual(['hotel_agent', 'weather_agent']);
    expect(new Set(plan.sub_tasks.map((task) => task.task_id)).size).toBe(2);
  });

  it('returns an empty plan when no intent maps to an enabled agent', async () => {
    const { plan } = await planner.plan(request('随便聊聊', []));
    expect(plan.sub_tasks).toEqual([]);
    expect(plan.total_tasks).toBe(0);
  });
});

describe('buildSubTasks', () => {
  it('describes each task by the whole query when no clause is known', () => {
    const { tasks } = buildSubTasks([hotel], { query: '帮我订北京的酒店', intents: [], memory: emptyMemory(), now: NOW, planId: 'p1' });
    expect(tasks).toEqual([
      {
        task_id: 'p1_task_1',
        description: '帮我订北京的酒店',
        assigned_agent: 'hotel_agent',
        inputs: { city: '北京' },
        dependencies: [],
        status: 'pending',
      },
    ]);
  });

  it('describes each task by the clause that asked for it', () => {
    const intents = [
      { agentId: 'hotel_agent', score: 1, clause: '帮我订北京的酒店' },
      { agentId: 'weather_agent', score: 1, clause: '告诉我北京明天的天气' },
    ];
    const { tasks } = buildSubTasks([hotel, weather], { query: '帮我订北京的酒店，再告诉我北京明天的天气', intents, memory: emptyMemory(), now: NOW, planId: 'p1' });
    expect(tasks.map((task) => task.description)).toEqual(['帮我订北京的酒店', '告诉我北京明天的天气']);
  });

  it('does not share input objects with memory', () => {
    const memory = { ...emptyMemory(), pending: [{ agent_id: 'hotel_agent', description: '', inputs: { city: '北京' }, missing_keys: ['check_in_date'] }] };
    const { tasks } = buildSubTasks([hotel], { query: '明天', intents: [], memory, now: NOW, planId: 'p1' });
    expect(tasks[0]!.inputs).not.toBe(memory.pending[0]!.inputs);
    expect(memory.pending[0]!.inputs).toEqual({ city: '北京' });
  });
});

describe('createOfflinePlanner task order', () => {
  it('orders independent tasks as the user mentioned them, whatever their rank', async () => {
    const planner = createOfflinePlanner();
    const query = '北京明天天气怎么样，再帮我订北京的酒店，明天入住';
    const base = request(query, []);
    const { plan } = await planner.plan({
      ...base,
      intents: [
        { agentId: 'hotel_agent', score: 0.9, clause: '再帮我订北京的酒店' },
        { agentId: 'weather_agent', score: 0.5, clause: '北京明天天气怎么样' },
      ],
    });
    expect(plan.sub_tasks.map((task) => task.assigned_agent)).toEqual(['weather_agent', 'hotel_agent']);
  });

  it('writes a parked request’s words once when the answer comes back inside the rewrite ("把套餐换成畅享99，13912345678")', async () => {
    const plan = card({
      id: 'plan_change',
      name: '套餐变更',
      description: '更换手机资费套餐',
      keywords: ['套餐'],
      sideEffects: true,
      requiredKeys: [keySpec('phone_number', '手机号码', { type: 'phone' }), keySpec('plan_name', '新套餐', { type: 'enum', values: ['畅享99', '畅享199'] })],
    });
    const pending = [{ agent_id: 'plan_change', description: '把套餐换成畅享99', inputs: { plan_name: '畅享99' }, missing_keys: ['phone_number'] }];
    const base = request('把套餐换成畅享99，13912345678', ['plan_change'], { cards: [plan], memory: { pending } });
    const { plan: made } = await planner.plan({ ...base, turnQuery: '13912345678' });
    expect(made.sub_tasks[0]!.inputs).toEqual({ plan_name: '畅享99', phone_number: '13912345678' });
    expect(made.sub_tasks[0]!.description).toBe('把套餐换成畅享99，13912345678');
    const { plan: rewritten } = await planner.plan(base);
    expect(rewritten.sub_tasks[0]!.description).toBe('把套餐换成畅享99，13912345678');
  });
});
