import { describe, expect, it } from 'vitest';
import { buildClarification, decideClarification, DEFAULT_CLARIFY_THRESHOLDS, optionNamedIn } from './clarification.js';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';

const snapshot = snapshotOf([
  card({ id: 'points_agent', name: 'Reward points', names: { zh: '积分' }, description: 'Reward points and cashback balance. Also vouchers.', descriptions: { zh: '积分与返现余额。' } }),
  card({ id: 'reports_agent', name: 'Spending reports', description: 'Monthly spending reports' }),
  card({ id: 'order_agent', name: 'Order lookup', description: 'Order status' }),
  card({ id: 'refund_agent', name: 'Refunds', description: 'Refunds' }),
]);

describe('buildClarification', () => {
  it('offers at most three enabled agents with labels in the query language and no agent id in a label', () => {
    const zh = buildClarification(['points_agent', 'reports_agent', 'order_agent', 'refund_agent'], snapshot, 'zh')!;
    expect(zh.options.map((option) => option.sub_agent_id)).toEqual(['points_agent', 'reports_agent', 'order_agent']);
    expect(zh.options[0]!.label).toBe('积分（积分与返现余额）');
    expect(buildClarification(['points_agent'], snapshot, 'en')!.options[0]!.label).toBe('Reward points (Reward points and cashback balance)');
    for (const option of zh.options) expect(option.label).not.toMatch(/_agent/);
    expect(buildClarification(['nobody'], snapshot, 'en')).toBeUndefined();
  });

  it('leaves out a description written in the other language: the label is then the name alone', () => {
    const mixed = snapshotOf([
      card({ id: 'vaccine_agent', name: 'Vaccine schedule', description: '查询宠物疫苗接种时间表' }),
      card({ id: 'booking_agent', name: '兽医预约', description: 'Book a vet appointment' }),
    ]);
    expect(buildClarification(['vaccine_agent', 'booking_agent'], mixed, 'en')!.options.map((option) => option.label)).toEqual(['Vaccine schedule', '兽医预约 (Book a vet appointment)']);
    expect(buildClarification(['vaccine_agent', 'booking_agent'], mixed, 'zh')!.options.map((option) => option.label)).toEqual(['Vaccine schedule（查询宠物疫苗接种时间表）', '兽医预约']);
    expect(buildClarification(['reports_agent'], snapshot, 'zh')!.options[0]!.label).toBe('Spending reports');
  });
});

describe('optionNamedIn', () => {
  const three = buildClarification(['points_agent', 'reports_agent', 'order_agent'], snapshot, 'zh')!;
  it.each([
    ['第二个', 'reports_agent'],
    ['第一个吧', 'points_agent'],
    ['3', 'order_agent'],
    ['the first one', 'points_agent'],
    ['The second one, please', 'reports_agent'],
    ['option 3', 'order_agent'],
    ['最后一个', 'order_agent'],
    ['积分', 'points_agent'],
    ['Spending reports', 'reports_agent'],
  ])('%j names %s', (text, agentId) => {
    expect(optionNamedIn(text, three, snapshot)?.sub_agent_id).toBe(agentId);
  });

  it.each(['帮我查一下明天北京的天气', '第五个', 'how do reports and points compare this month', ''])('%j names none (a new request)', (text) => {
    expect(optionNamedIn(text, three, snapshot)).toBeUndefined();
  });

  it('takes a bare yes as the only option', () => {
    const one = buildClarification(['points_agent'], snapshot, 'en')!;
    expect(optionNamedIn('yes', one, snapshot, true)?.sub_agent_id).toBe('points_agent');
    expect(optionNamedIn('yes', three, snapshot, true)).toBeUndefined();
  });
});

describe('decideClarification', () => {
  const list = (shares: number[], extra: Partial<{ covered: number; centroid: number; shared: number; backing: number; separable: boolean }> = {}) => ({
    candidates: shares.map((share, index) => ({ agentId: ['a', 'b', 'c'][index]!, share })),
    covered: 0.5,
    centroid: 0.2,
    shared: 1,
    backing: shares[0] ?? 0,
    separable: false,
    ...extra,
  });
  it('keeps a route the shortlist backs, asks about one it does not, keeps the route on a registry whose cards stand apart', () => {
    expect(decideClarification(list([0.9, 0.05, 0.05]), 'a')).toEqual({ route: true });
    // The shortlist's first card, sure enough, takes a similarity route from another card; too weak for options too.
    expect(decideClarification(list([0.95, 0.03, 0.02]), 'b')).toEqual({ route: true, agentId: 'a' });
    expect(decideClarification(list([0.5, 0.3, 0.2], { covered: 0.1 }), 'b')).toEqual({ route: true, agentId: 'a' });
    expect(decideClarification(list([0.5, 0.3, 0.2]), 'a')).toEqual({ offer: ['a', 'b', 'c'] });
    expect(decideClarification(list([0.5, 0.3, 0.2]), 'c')).toEqual({ offer: ['a', 'b', 'c'] });
    expect(decideClarification(list([0.5, 0.3, 0.2], { separable: true }), 'b')).toEqual({ route: true });
  });
  it('routes on what both models back, not on their product alone', () => {
    // The product of the two models is sure of `a`, but one of them alone is not: ask.
    expect(decideClarification(list([0.97, 0.02, 0.01], { backing: 0.6 }), 'a')).toEqual({ offer: ['a', 'b', 'c'] });
    expect(decideClarification(list([0.7, 0.2, 0.1], { backing: 0.85 }), 'b')).toEqual({ route: true, agentId: 'a' });
  });
  it('asks about an unrouted request near some agents, and leaves one near none out of scope', () => {
    expect(decideClarification(list([0.6, 0.395, 0.005]), undefined)).toEqual({ offer: ['a', 'b'] });
    expect(decideClarification(list([0.6, 0.3, 0.1], { covered: 0.1 }), undefined)).toEqual({ nothing: true });
    expect(decideClarification(list([0.6, 0.3, 0.1], { shared: 0 }), undefined)).toEqual({ nothing: true });
    expect(decideClarification(list([0.2, 0.2, 0.2]), undefined)).toEqual({ nothing: true });
    // Far from the first card's texts taken together (its centroid): near no agent.
    expect(decideClarification(list([0.6, 0.3, 0.1], { centroid: 0.03 }), undefined, { ...DEFAULT_CLARIFY_THRESHOLDS, minCentroid: 0.06 })).toEqual({ nothing: true });
    // Up to three options: a third candidate with a small share is still offered.
    expect(decideClarification(list([0.6, 0.38, 0.02]), undefined)).toEqual({ offer: ['a', 'b', 'c'] });
  });
});
