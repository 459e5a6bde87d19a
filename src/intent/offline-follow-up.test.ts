import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegistryFile } from '../registry/index.js';
import type { RegistrySnapshot } from '../registry/types.js';
import { createOfflineRecognizer } from './offline-recognizer.js';
import { snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { MemoryTurn } from './types.js';
import { readTurnQuery } from '../understanding/index.js';

const TODAY = new Date('2026-06-01T08:00:00Z');
const recognizer = createOfflineRecognizer({ now: () => TODAY });
const snapshot = snapshotOf(travelCards());
const hotelTurn: MemoryTurn = { query: '帮我订上海明天的酒店', rewrittenQuery: '帮我订上海明天的酒店', answer: '已为您找到酒店', agents: ['hotel_agent'] };

function recognize(query: string, history: MemoryTurn[]) {
  return recognizer.recognize({ ...readTurnQuery(query), history, snapshot, pendingAgents: [] });
}

describe('offline follow-ups', () => {
  it('a short question naming no service goes on with the previous turn\'s agents', async () => {
    const result = await recognize('地址呢？', [hotelTurn]);
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
    expect(result.rewrittenQuery).toBe('帮我订上海明天的酒店，地址呢？');
  });

  it('without a previous turn the same question is out of scope', async () => {
    expect((await recognize('地址呢？', [])).simpleKind).toBe('out_of_scope');
  });

  it('"那边天气怎么样" routes to weather and reads the place from the previous turn', async () => {
    const result = await recognize('那边天气怎么样', [hotelTurn]);
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    expect(result.rewrittenQuery).toBe('帮我订上海明天的酒店，那边天气怎么样');
  });

  it('small talk after a turn is still small talk', async () => {
    expect((await recognize('谢谢', [hotelTurn])).simpleKind).toBe('thanks');
  });
});

describe('offline follow-ups on the travel sample registry', () => {
  let sample: RegistrySnapshot;
  beforeAll(async () => {
    const loaded = await loadRegistryFile(fileURLToPath(new URL('../../agents_config.yaml', import.meta.url)), { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    sample = loaded.snapshot;
  });
  const turn = (query: string, agent: string): MemoryTurn => ({ query, rewrittenQuery: query, answer: 'ok', agents: [agent] });
  const hotel = turn('帮我订成都明天的酒店', 'hotel_agent');
  const flight = turn('查一下明天从北京到西安的机票', 'flight_agent');
  const routed = async (query: string, history: MemoryTurn[]) => {
    const result = await recognizer.recognize({ ...readTurnQuery(query), history, snapshot: sample, pendingAgents: [] });
    return { agents: result.intents.map((intent) => intent.agentId), rewrittenQuery: result.rewrittenQuery };
  };

  it('a comparison with the previous results stays with their agent, though its words are closer to another card', async () => {
    expect(await routed('有没有更便宜的', [hotel])).toEqual({ agents: ['hotel_agent'], rewrittenQuery: '帮我订成都明天的酒店，有没有更便宜的' });
    expect((await routed('便宜一点的呢', [hotel])).agents).toEqual(['hotel_agent']);
    expect((await routed('换一家', [hotel])).agents).toEqual(['hotel_agent']);
    expect((await routed('any cheaper ones?', [turn('book a hotel in Hangzhou for tomorrow', 'hotel_agent')])).agents).toEqual(['hotel_agent']);
    expect((await routed('any earlier ones?', [turn('flights from Shanghai to Beijing tomorrow', 'flight_agent')])).agents).toEqual(['flight_agent']);
  });

  it('a comparison naming another card\'s words, or a request of its own, leaves the previous agent', async () => {
    expect((await routed('有没有别的航线', [hotel])).agents).toEqual(['flight_agent']);
    expect((await routed('再帮我叫个车去酒店', [turn('帮我订上海明天的酒店', 'hotel_agent')])).agents).toEqual(['limo_agent']);
  });

  it('a place reference with another card\'s words goes to that card, the place read from the previous turn', async () => {
    expect(await routed('那边冷吗', [flight])).toEqual({ agents: ['weather_agent'], rewrittenQuery: '查一下明天从北京到西安的机票，那边冷吗' });
    expect((await routed('那边冷不冷', [hotel])).agents).toEqual(['weather_agent']);
    expect((await routed('do I need a jacket there?', [turn('flights from Shanghai to Beijing tomorrow', 'flight_agent')])).agents).toEqual(['weather_agent']);
  });

  it('a place reference with no card\'s own words goes on with the previous agent', async () => {
    expect((await routed('那边呢', [flight])).agents).toEqual(['flight_agent']);
    expect((await routed('what about there?', [turn('book a hotel in Hangzhou for tomorrow', 'hotel_agent')])).agents).toEqual(['hotel_agent']);
  });
});

describe('answers to a parked request', () => {
  let ecommerce: RegistrySnapshot;
  const refundTurn: MemoryTurn = { query: '我要退款，质量问题', rewrittenQuery: '我要退款，质量问题', answer: '请提供订单号', agents: ['refund_agent'] };
  beforeAll(async () => {
    const loaded = await loadRegistryFile(fileURLToPath(new URL('../../examples/ecommerce/agents_config.yaml', import.meta.url)), { env: {} });
    if (!loaded.ok) throw new Error('e-commerce registry invalid');
    ecommerce = loaded.snapshot;
  });
  const agents = async (query: string, pendingAgents: string[]) =>
    (await recognizer.recognize({ ...readTurnQuery(query), history: [refundTurn], snapshot: ecommerce, pendingAgents })).intents.map((intent) => intent.agentId);

  it('the name of the awaited key is no new request: "订单号是 …" completes the parked refund', async () => {
    expect(await agents('订单号是 2024051812345678', ['refund_agent'])).toEqual(['refund_agent']);
    // With nothing parked the same words ask about the order.
    expect(await agents('订单号是 2024051812345678', [])).toEqual(['order_agent']);
  });

  it('a request in other words still goes where it asks', async () => {
    expect(await agents('订单号 2024051812345678 到哪了', ['refund_agent'])).toEqual(['logistics_agent']);
  });
});

