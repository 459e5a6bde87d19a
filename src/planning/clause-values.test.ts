import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../registry/types.js';
import { createExampleRanker } from '../intent/routing/example-ranker.js';
import { attributeClauseValues, type ClauseValuesRequest } from './clause-values.js';
import { readText, readTurnQuery } from '../understanding/index.js';
import { card, ecommerceCards, keySpec, patternSpec, snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const ranker = createExampleRanker();

/** Ranks the text like the offline recognizer, then attributes values to every ranked agent. */
function attribute(text: string, cards: AgentCard[], extra: Partial<ClauseValuesRequest> = {}) {
  const snapshot = snapshotOf(cards);
  const intents = extra.intents ?? ranker.rank(readTurnQuery(text), snapshot).intents;
  const chosen = cards.filter((card) => intents.some((intent) => intent.agentId === card.id));
  const result = attributeClauseValues({ text: readText(text, chosen), intents, cards: chosen, now: NOW, ...extra });
  return Object.fromEntries([...result].map(([agentId, values]) => [agentId, values.extraction.values]));
}

describe('attributeClauseValues', () => {
  it('keeps a later clause’s values out of an earlier request', () => {
    expect(attribute('帮我订个酒店，再查一下明天从北京到上海的机票', travelCards())).toEqual({
      hotel_agent: {},
      flight_agent: { origin: '北京', destination: '上海', date: TOMORROW },
    });
  });

  it('gives each clause its own values, whatever comes later', () => {
    expect(attribute('查一下杭州明天的天气，再订一张12月3日从北京到上海的机票', travelCards())).toEqual({
      weather_agent: { city: '杭州' },
      flight_agent: { origin: '北京', destination: '上海', date: '2026-12-03' },
    });
  });

  it('shares a value the user attached to several requests', () => {
    expect(attribute('北京的酒店和天气', travelCards())).toEqual({ hotel_agent: { city: '北京' }, weather_agent: { city: '北京' } });
    expect(attribute('hotels and weather in Beijing', travelCards())).toMatchObject({ hotel_agent: { city: 'Beijing' }, weather_agent: { city: 'Beijing' } });
  });

  it('splits one clause at the 和 that joins two full requests, each keeping its own values', () => {
    const both = (text: string) => [
      { agentId: 'weather_agent', score: 1, clause: text },
      { agentId: 'flight_agent', score: 1, clause: text },
    ];
    const query = '查询北京明天的天气和明天从北京到上海的航班';
    expect(attribute(query, travelCards(), { intents: both(query) })).toEqual({
      weather_agent: { city: '北京' },
      flight_agent: { origin: '北京', destination: '上海', date: TOMORROW },
    });
    const apart = '查询杭州明天的天气和12月3日从北京到上海的航班';
    expect(attribute(apart, travelCards(), { intents: both(apart) })).toEqual({
      weather_agent: { city: '杭州' },
      flight_agent: { origin: '北京', destination: '上海', date: '2026-12-03' },
    });
    const hotelFirst = '北京的酒店和上海的天气';
    const hotelAndWeather = [
      { agentId: 'hotel_agent', score: 1, clause: hotelFirst },
      { agentId: 'weather_agent', score: 1, clause: hotelFirst },
    ];
    expect(attribute(hotelFirst, travelCards(), { intents: hotelAndWeather })).toEqual({ hotel_agent: { city: '北京' }, weather_agent: { city: '上海' } });
  });

  it('lets a later clause with no value of its own continue the subject of the clause before', () => {
    expect(attribute('查一下订单 2024051812345678 的状态，还有物流到哪了', ecommerceCards())).toEqual({
      order_agent: { order_id: '2024051812345678' },
      logistics_agent: { order_id: '2024051812345678' },
    });
    expect(attribute('check the status of order 2024051812345678, and where is my package now', ecommerceCards())).toEqual({
      order_agent: { order_id: '2024051812345678' },
      logistics_agent: { order_id: '2024051812345678' },
    });
  });

  it('never lets an agent with side effects inherit', () => {
    expect(attribute('查一下订单 2024051812345678 的状态，再帮我退款', ecommerceCards())).toEqual({
      order_agent: { order_id: '2024051812345678' },
      refund_agent: {},
    });
    expect(attribute('查一下北京明天的天气，再帮我订个酒店', travelCards())).toEqual({ weather_agent: { city: '北京' }, hotel_agent: {} });
    expect(attribute('check the status of order 2024051812345678, and I want a refund', ecommerceCards())).toEqual({
      order_agent: { order_id: '2024051812345678' },
      refund_agent: {},
    });
  });

  it('does not inherit into a clause that names a value of its own', () => {
    const values = attribute('订北京明天的酒店，再订一张12月3日的机票', travelCards());
    expect(values.flight_agent).toEqual({ date: '2026-12-03' });
  });

  it('attaches a clause of bare values to the request before it, and a leading one to the request after it', () => {
    expect(attribute('帮我订北京的酒店，明天，再查一下上海的天气', travelCards())).toEqual({
      hotel_agent: { city: '北京', check_in_date: TOMORROW },
      weather_agent: { city: '上海' },
    });
    expect(attribute('明天，北京，帮我订个酒店', travelCards())).toEqual({ hotel_agent: { city: '北京', check_in_date: TOMORROW } });
  });

  it('reads a parked request’s answer from this turn only, never from another request’s clause', () => {
    const [hotel, , , weather] = travelCards() as [AgentCard, AgentCard, AgentCard, AgentCard];
    const text = '帮我订个酒店，明天，再查一下上海的天气';
    const result = attributeClauseValues({
      text: readText(text, [hotel, weather]),
      turnText: readText('明天，再查一下上海的天气', []).normal,
      intents: [{ agentId: 'weather_agent', clause: '查一下上海的天气' }, { agentId: 'hotel_agent' }],
      cards: [hotel, weather],
      pendingAgents: ['hotel_agent'],
      now: NOW,
    });
    expect(result.get('hotel_agent')).toMatchObject({ scope: 'answer', extraction: { values: { check_in_date: TOMORROW } } });
    expect(result.get('weather_agent')).toMatchObject({ scope: 'clause', extraction: { values: { city: '上海' } } });
  });

  it('reads the whole query when no clause is known (a request carried from the last turn)', () => {
    const [hotel] = travelCards() as [AgentCard];
    const result = attributeClauseValues({ text: readText('帮我订北京的酒店，上海呢', [hotel]), intents: [{ agentId: 'hotel_agent' }], cards: [hotel], now: NOW });
    expect(result.get('hotel_agent')).toMatchObject({ scope: 'open', extraction: { values: { city: '上海' } } });
  });

  it('reads a free-text key from the clause that names it by its label ("原因是临时有事", "reason: running late")', () => {
    const cancel = card({
      id: 'cancel_visit',
      name: '取消预约',
      description: '取消已有的门诊预约',
      keywords: ['取消预约'],
      requiredKeys: [
        keySpec('appointment_id', '预约号', patternSpec('(AP\\d{4})', 'i')),
        { ...keySpec('reason', '取消原因', { type: 'text' }), descriptions: { zh: '取消原因', en: 'cancellation reason' } },
      ],
    });
    const intents = (text: string) => [{ agentId: 'cancel_visit', score: 1, clause: text }];
    const zh = '我要取消预约，预约号是AP1234，原因是临时有事';
    expect(attribute(zh, [cancel], { intents: intents(zh) })).toEqual({ cancel_visit: { appointment_id: 'AP1234', reason: '临时有事' } });
    expect(attribute(zh, [cancel])).toEqual({ cancel_visit: { appointment_id: 'AP1234', reason: '临时有事' } });
    const full = '取消预约 AP1234，取消原因：出差';
    expect(attribute(full, [cancel], { intents: intents(full) })).toEqual({ cancel_visit: { appointment_id: 'AP1234', reason: '出差' } });
    const en = 'cancel appointment AP1234, the reason is I am running late';
    expect(attribute(en, [cancel], { intents: intents(en) })).toEqual({ cancel_visit: { appointment_id: 'AP1234', reason: 'I am running late' } });
    // No clause names the key: the request's own words stay its value.
    const bare = '取消预约 AP1234';
    expect(attribute(bare, [cancel], { intents: intents(bare) })).toEqual({ cancel_visit: { appointment_id: 'AP1234', reason: '取消预约 AP1234' } });
  });

  it('never reads the request’s own word as an off-list value of an enum key ("预约", "话费套餐")', () => {
    const book = card({
      id: 'book_visit',
      name: '预约挂号',
      description: '预约医院门诊',
      keywords: ['挂号', '预约'],
      sideEffects: true,
      requiredKeys: [keySpec('hospital', '医院', { type: 'enum', values: ['协和医院', '同仁医院'] }), keySpec('department', '科室', { type: 'enum', values: ['牙科', '眼科'] })],
    });
    const plan = card({
      id: 'plan_change',
      name: '套餐变更',
      description: '更换手机资费套餐',
      keywords: ['套餐', '改套餐'],
      requiredKeys: [keySpec('plan_name', '新套餐', { type: 'enum', values: ['畅享99', '畅享129'] })],
    });
    const invalidOf = (text: string, chosen: AgentCard) =>
      attributeClauseValues({ text: readText(text, [chosen]), intents: [{ agentId: chosen.id, clause: readText(text, [chosen]).normal }], cards: [chosen], now: NOW }).get(chosen.id)!.extraction.invalid;
    expect(invalidOf('预约', book)).toEqual([]);
    expect(invalidOf('话费套餐', plan)).toEqual([]);
    // A name off the list is still reported as one.
    const hospitalOnly = { ...book, requiredKeys: book.requiredKeys.slice(0, 1) };
    expect(invalidOf('我在南京，预约', hospitalOnly).map((item) => [item.key, item.raw])).toEqual([['hospital', '南京']]);
  });

  it('gives a value said once after every request to each of them that needs that key and has none ("…，手机号13912345678")', () => {
    const phone = keySpec('phone_number', '手机号码', { type: 'phone' });
    const bill = card({ id: 'bill_lookup', name: '账单查询', description: '查询话费账单', keywords: ['话费', '账单', 'bill'], requiredKeys: [phone, keySpec('bill_month', '账单月份', patternSpec('(20\\d\\d-\\d\\d)'))] });
    const topUp = card({ id: 'data_topup', name: '流量充值', description: '购买流量包', keywords: ['流量', 'data'], sideEffects: true, requiredKeys: [phone, keySpec('data_gb', '流量大小', patternSpec('(\\d+)\\s*(?:G|GB)\\b', 'i'))] });
    expect(attribute('查一下我上个月的话费，再给我充10G流量，手机号13912345678', [bill, topUp])).toEqual({
      bill_lookup: { phone_number: '13912345678' },
      data_topup: { phone_number: '13912345678', data_gb: '10' },
    });
    expect(attribute('show my bill and add 5GB of data, my number is 13912345678', [bill, topUp])).toEqual({
      bill_lookup: { phone_number: '13912345678' },
      data_topup: { phone_number: '13912345678', data_gb: '5' },
    });
    // A value inside a request's own clause stays that request's.
    expect(attribute('查一下我上个月的话费，再给13912345678充10G流量', [bill, topUp])).toEqual({
      bill_lookup: {},
      data_topup: { phone_number: '13912345678', data_gb: '10' },
    });
  });
});
