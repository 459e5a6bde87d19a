import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { card, keySpec, patternSpec, snapshotOf } from '../../test/support/registry-fixtures.js';
import type { AgentCard, ExtractSpec } from '../registry/types.js';
import type { InvalidKey, SubTask, TaskPlan } from './plan-types.js';
import { checkKeyValue, checkPlanSemantics } from './semantic-check.js';

const ajv = new Ajv({ allErrors: true });

function withInputSchema(base: AgentCard, schema: Record<string, unknown>): AgentCard {
  return { ...base, inputSchema: schema, validateInput: ajv.compile(schema) };
}

const hotel = card({
  id: 'hotel_agent',
  name: '酒店服务',
  description: 'hotels',
  requiredKeys: [
    keySpec('city', '入住城市', { type: 'enum', values: ['北京', '上海', 'Beijing'] }, 'city_selector'),
    keySpec('check_in_date', '入住日期', { type: 'date' }, 'date_picker'),
    keySpec('guests', '入住人数', { type: 'number', min: 1, max: 10 }),
  ],
});
const limo = card({
  id: 'limo_agent',
  name: '接送机服务',
  description: 'airport transfer',
  dependsOn: ['hotel_agent'],
  requiredKeys: [keySpec('airport', '机场', { type: 'enum', values: ['首都机场', '大兴机场'] }, 'airport_selector')],
});
const tour = card({ id: 'tour_agent', name: '行程服务', description: 'tours', dependsOn: ['limo_agent'] });
const weather = card({
  id: 'weather_agent',
  name: '天气查询',
  description: 'weather',
  requiredKeys: [keySpec('city', '查询城市', { type: 'enum', values: ['北京', '上海'] }, 'city_selector')],
});

const validHotelInputs = { city: '北京', check_in_date: '2026-11-23', guests: 2 };

function subTask(taskId: string, agentId: string, inputs: Record<string, unknown>, dependencies: string[] = []): SubTask {
  return { task_id: taskId, description: agentId, assigned_agent: agentId, inputs, dependencies, status: 'pending' };
}

function planOf(tasks: SubTask[]): TaskPlan {
  return {
    plan_id: 'plan_test',
    task_type: 'mixed',
    sub_tasks: tasks,
    reasoning: '',
    total_tasks: tasks.length,
    missing_semantic_keys: [],
    user_friendly_message: '',
  };
}

describe('checkKeyValue', () => {
  const enumSpec: ExtractSpec = { type: 'enum', values: ['北京', 'Shanghai'] };
  const numberSpec: ExtractSpec = { type: 'number', min: 1, max: 9 };
  it.each<[string, ExtractSpec, unknown, string | null]>([
    ['enum value', enumSpec, '北京', null],
    ['enum value in another case', enumSpec, 'shanghai', null],
    ['value outside the enum', enumSpec, '纽约', 'not one of 北京, Shanghai'],
    ['date', { type: 'date' }, '2026-11-23', null],
    ['leap day', { type: 'date' }, '2028-02-29', null],
    ['day that does not exist', { type: 'date' }, '2026-02-30', 'not a calendar date'],
    ['month 13', { type: 'date' }, '2026-13-01', 'not a calendar date'],
    ['relative date word', { type: 'date' }, '明天', 'not a date (YYYY-MM-DD)'],
    ['date without padding', { type: 'date' }, '2026-1-5', 'not a date (YYYY-MM-DD)'],
    ['number', numberSpec, 3, null],
    ['number as text', numberSpec, '3', null],
    ['number at the bounds', numberSpec, 9, null],
    ['number below min', numberSpec, 0, 'below 1'],
    ['number above max', numberSpec, 10, 'above 9'],
    ['word for a number', numberSpec, 'three', 'not a number'],
    ['NaN', { type: 'number' }, Number.NaN, 'not a number'],
    ['Infinity', { type: 'number' }, Number.POSITIVE_INFINITY, 'not a number'],
    ['boolean for a number', { type: 'number' }, true, 'not text or a number'],
    ['mobile number', { type: 'phone' }, '13800138000', null],
    ['mobile number as a number', { type: 'phone' }, 13800138000, null],
    ['11 digits starting with 12', { type: 'phone' }, '12345678901', 'not a mobile number'],
    ['10 digits', { type: 'phone' }, '1380013800', 'not a mobile number'],
    ['email', { type: 'email' }, 'li.lei@example.com', null],
    ['email without a domain dot', { type: 'email' }, 'li@example', 'not an email address'],
    ['email with a space', { type: 'email' }, 'li lei@example.com', 'not an email address'],
    // The same rule extraction uses: a value the extractor would reject is not accepted here either.
    ['email with a one-letter top-level domain', { type: 'email' }, 'li@example.c', 'not an email address'],
    ['email with a double dot', { type: 'email' }, 'li@example..com', 'not an email address'],
    ['pattern value', patternSpec('\\d{10,20}'), '1234567890', null],
    ['text', { type: 'text' }, 'window seat', null],
    ['number for text', { type: 'text' }, 42, null],
    ['object for text', { type: 'text' }, { seat: 'window' }, 'not text or a number'],
    ['array for an enum', enumSpec, ['北京'], 'not text or a number'],
    ['undefined', { type: 'text' }, undefined, 'empty'],
    ['null', { type: 'date' }, null, 'empty'],
    ['empty string', enumSpec, '', 'empty'],
    ['blank string', { type: 'text' }, '   ', 'empty'],
    ['blank string for a number', { type: 'number' }, ' ', 'empty'],
  ])('%s', (_label, extract, value, expected) => {
    expect(checkKeyValue(extract, value)).toBe(expected);
  });
});

describe('checkPlanSemantics', () => {
  it('passes a plan whose tasks have every key, valid', () => {
    const snapshot = snapshotOf([hotel, weather]);
    const result = checkPlanSemantics(planOf([subTask('t1', 'hotel_agent', validHotelInputs), subTask('t2', 'weather_agent', { city: '上海' })]), {}, snapshot);
    expect(result.plan.sub_tasks.map((task) => task.status)).toEqual(['pending', 'pending']);
    expect(result.semanticInfo).toEqual([]);
    expect(result.heldBack).toEqual({});
    expect(result.plan.missing_semantic_keys).toEqual([]);
  });

  it('parks a task with missing and invalid keys, one entry each, arrays aligned by index', () => {
    const snapshot = snapshotOf([hotel, weather]);
    const plan = planOf([subTask('t1', 'hotel_agent', { city: '纽约' }), subTask('t2', 'weather_agent', { city: '上海' })]);
    const result = checkPlanSemantics(plan, {}, snapshot);
    expect(result.semanticInfo).toEqual([
      {
        type: 'miss',
        sub_agent_id: 'hotel_agent',
        keys: ['check_in_date', 'guests'],
        key_descriptions: ['入住日期', '入住人数'],
        fe_widgets_suggestion: ['date_picker', ''],
        key_options: [[], []],
      },
      {
        type: 'invalid',
        sub_agent_id: 'hotel_agent',
        keys: ['city'],
        key_descriptions: ['入住城市'],
        fe_widgets_suggestion: ['city_selector'],
        key_options: [['北京', '上海', 'Beijing']],
      },
    ]);
    const [hotelTask, weatherTask] = result.plan.sub_tasks;
    expect(hotelTask!.status).toBe('parked');
    expect(hotelTask!.inputs).toEqual({});
    expect(result.heldBack.t1).toBe('missing check_in_date, guests; invalid city');
    expect(weatherTask!.status).toBe('pending');
    expect(result.plan.missing_semantic_keys).toEqual(['check_in_date', 'guests', 'city']);
    expect(result.invalidKeys).toEqual({ t1: [{ key: 'city', raw: '纽约', reason: 'not one of 北京, 上海, Beijing' }] });
  });

  it('treats a blank value as missing, not invalid', () => {
    const result = checkPlanSemantics(planOf([subTask('t1', 'hotel_agent', { ...validHotelInputs, city: '  ' })]), {}, snapshotOf([hotel]));
    expect(result.semanticInfo.map((info) => [info.type, info.keys])).toEqual([['miss', ['city']]]);
    expect(result.plan.sub_tasks[0]!.inputs).not.toHaveProperty('city');
  });

  it('parks the dependents of a parked task (transitively) and leaves independent tasks alone', () => {
    const snapshot = snapshotOf([hotel, limo, tour, weather]);
    const plan = planOf([
      subTask('t1', 'hotel_agent', { city: '北京' }),
      subTask('t2', 'limo_agent', { airport: '首都机场' }, ['t1']),
      subTask('t3', 'tour_agent', {}, ['t2']),
      subTask('t4', 'weather_agent', { city: '北京' }),
    ]);
    const result = checkPlanSemantics(plan, {}, snapshot);
    expect(result.plan.sub_tasks.map((task) => [task.task_id, task.status])).toEqual([
      ['t1', 'parked'],
      ['t2', 'parked'],
      ['t3', 'parked'],
      ['t4', 'pending'],
    ]);
    expect(result.heldBack.t2).toBe('waits for a task that is held back');
    expect(result.heldBack.t3).toBe('waits for a task that is held back');
    expect(result.semanticInfo.map((info) => info.sub_agent_id)).toEqual(['hotel_agent']);
  });

  it('reports a key that extraction already found invalid as invalid, not missing', () => {
    const invalidKeys: Record<string, InvalidKey[]> = { t1: [{ key: 'check_in_date', raw: '2月30日', reason: 'not a calendar date' }] };
    const plan = planOf([subTask('t1', 'hotel_agent', { city: '北京', guests: 2 })]);
    const result = checkPlanSemantics(plan, invalidKeys, snapshotOf([hotel]));
    expect(result.semanticInfo).toEqual([
      { type: 'invalid', sub_agent_id: 'hotel_agent', keys: ['check_in_date'], key_descriptions: ['入住日期'], fe_widgets_suggestion: ['date_picker'], key_options: [[]] },
    ]);
    expect(result.plan.sub_tasks[0]!.status).toBe('parked');
    expect(result.invalidKeys).toEqual(invalidKeys);
  });

  it('maps an input_schema failure on a semantic key to an invalid entry for that key', () => {
    const strictHotel = withInputSchema(hotel, {
      type: 'object',
      properties: { guests: { type: 'integer', maximum: 4 } },
    });
    const plan = planOf([subTask('t1', 'hotel_agent', { ...validHotelInputs, guests: 6 })]);
    const result = checkPlanSemantics(plan, {}, snapshotOf([strictHotel]));
    expect(result.semanticInfo).toEqual([
      { type: 'invalid', sub_agent_id: 'hotel_agent', keys: ['guests'], key_descriptions: ['入住人数'], fe_widgets_suggestion: [''], key_options: [[]] },
    ]);
    const task = result.plan.sub_tasks[0]!;
    expect(task.status).toBe('parked');
    // The rejected value is not kept, so it is neither sent later nor remembered as known.
    expect(task.inputs).toEqual({ city: '北京', check_in_date: '2026-11-23' });
    expect(result.plan.missing_semantic_keys).toEqual(['guests']);
  });

  it('fails a task whose input_schema failure names no semantic key, and still runs the others', () => {
    const strictHotel = withInputSchema(hotel, { type: 'object', required: ['room_type'] });
    const plan = planOf([subTask('t1', 'hotel_agent', validHotelInputs), subTask('t2', 'weather_agent', { city: '北京' })]);
    const result = checkPlanSemantics(plan, {}, snapshotOf([strictHotel, weather]));
    expect(result.plan.sub_tasks.map((task) => task.status)).toEqual(['failed', 'pending']);
    expect(result.semanticInfo).toEqual([]);
    expect(result.heldBack.t1).toMatch(/^inputs do not satisfy the input schema: .*room_type/);
    expect(result.plan.missing_semantic_keys).toEqual([]);
  });

  it('leaves the dependents of a failed task to the scheduler', () => {
    const strictHotel = withInputSchema(hotel, { type: 'object', required: ['room_type'] });
    const plan = planOf([subTask('t1', 'hotel_agent', validHotelInputs), subTask('t2', 'limo_agent', { airport: '首都机场' }, ['t1'])]);
    const result = checkPlanSemantics(plan, {}, snapshotOf([strictHotel, limo]));
    expect(result.plan.sub_tasks.map((task) => task.status)).toEqual(['failed', 'pending']);
  });

  it('leaves a task of an agent missing from the snapshot untouched', () => {
    const result = checkPlanSemantics(planOf([subTask('t1', 'gone_agent', {})]), {}, snapshotOf([hotel]));
    expect(result.plan.sub_tasks[0]!.status).toBe('pending');
    expect(result.semanticInfo).toEqual([]);
  });

  it('does not change the plan it was given', () => {
    const plan = planOf([
      subTask('t1', 'hotel_agent', { city: '纽约', check_in_date: '2026-11-23' }),
      subTask('t2', 'limo_agent', { airport: '首都机场' }, ['t1']),
    ]);
    const before = structuredClone(plan);
    const invalidKeys: Record<string, InvalidKey[]> = { t1: [{ key: 'guests', raw: '0', reason: 'below 1' }] };
    const invalidBefore = structuredClone(invalidKeys);
    const result = checkPlanSemantics(plan, invalidKeys, snapshotOf([hotel, limo]));
    expect(plan).toEqual(before);
    expect(invalidKeys).toEqual(invalidBefore);
    expect(result.plan).not.toBe(plan);
    expect(result.plan.sub_tasks[0]!.inputs).not.toBe(plan.sub_tasks[0]!.inputs);
  });
});
