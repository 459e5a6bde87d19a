import { describe, expect, it } from 'vitest';
import { card as fixtureCard } from '../../../test/support/registry-fixtures.js';
import type { AgentCard } from '../../registry/types.js';
import { insufficiencyOf, isEmptyValue, ruleCheck, saysNothingFound } from './rule-check.js';

const card = (overrides: Partial<AgentCard> = {}): AgentCard =>
  fixtureCard({ id: 'weather_agent', name: '天气查询', description: '天气', outputSchema: { type: 'object' }, ...overrides });

describe('verify rule check', () => {
  it('recognises "nothing found" messages in Chinese and English, not ordinary answers', () => {
    for (const text of ['未找到相关航班', '没有找到符合条件的酒店', '抱歉，查不到该订单', '暂无数据', 'No results found for Paris', "We couldn't find any flights", 'Order not found', 'nothing was found']) {
      expect(saysNothingFound(text), text).toBe(true);
    }
    for (const text of ['北京明天晴', '已为您预订北京饭店', 'Found 3 flights', 'No problem, booked.', undefined]) expect(saysNothingFound(text), String(text)).toBe(false);
  });

  it('treats absent, {} and all-empty values as empty', () => {
    expect(isEmptyValue(undefined)).toBe(true);
    expect(isEmptyValue({})).toBe(true);
    expect(isEmptyValue({ items: [], note: ' ', nested: { list: [null] } })).toBe(true);
    expect(isEmptyValue({ count: 0 })).toBe(false);
    expect(isEmptyValue({ city: '北京', forecast: [] })).toBe(false);
  });

  it('counts an empty output as insufficient even with a message and without an output_schema (docs/api.md#model-replies)', () => {
    expect(insufficiencyOf({ message: '营业时间为9点到18点' })).toBe('empty');
    expect(insufficiencyOf({ output: {}, message: '营业时间为9点到18点' })).toBe('empty');
    expect(insufficiencyOf({})).toBe('empty');
    expect(insufficiencyOf({ output: { hours: '9:00-18:00' }, message: '营业时间为9点到18点' })).toBeNull();
    expect(insufficiencyOf({ output: { flights: [] }, message: '未找到航班' })).toBe('nothing_found');
  });

  it('applies the same rule to an agent that declares no output_schema', () => {
    const tasks = [{ task_id: 'a', description: '', assigned_agent: 'faq_agent', inputs: {}, dependencies: [], status: 'pending' as const }];
    const outcomes = { a: { task_id: 'a', agent_id: 'faq_agent', status: 'completed' as const, output: {}, message: '营业时间为9点到18点' } };
    const faq = card({ id: 'faq_agent', outputSchema: undefined });
    expect(ruleCheck(tasks, outcomes, () => faq)).toEqual([{ task_id: 'a', agent_id: 'faq_agent', reason: 'empty' }]);
  });

  it('checks completed read-only tasks only', () => {
    const tasks = ['a', 'b', 'c', 'd'].map((id) => ({ task_id: id, description: '', assigned_agent: id === 'c' ? 'writer' : 'weather_agent', inputs: {}, dependencies: [], status: 'pending' as const }));
    const outcomes = {
      a: { task_id: 'a', agent_id: 'weather_agent', status: 'completed' as const, output: {} },
      b: { task_id: 'b', agent_id: 'weather_agent', status: 'failed' as const },
      c: { task_id: 'c', agent_id: 'writer', status: 'completed' as const, output: {} },
      d: { task_id: 'd', agent_id: 'weather_agent', status: 'completed' as const, output: { ok: true } },
    };
    const cards = new Map([['weather_agent', card()], ['writer', card({ id: 'writer', sideEffects: true })]]);
    expect(ruleCheck(tasks, outcomes, (id) => cards.get(id))).toEqual([{ task_id: 'a', agent_id: 'weather_agent', reason: 'empty' }]);
  });
});
