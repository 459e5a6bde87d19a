/**
 * Slot values stay in their own clause, over real HTTP: both sample registries
 * pointed at fake sub-agents, the offline path, and for every turn the inputs
 * each fake agent actually received (or the keys the user is asked for when a
 * request is parked, or the inputs a booking is held with for confirmation). A
 * booking or refund (`side_effects: true`, kept on here) never takes a value
 * the user gave for another request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const DAY_AFTER = '2026-11-24';

/**
 * Per agent: the inputs it must receive (and text its message must hold), the
 * keys the user must be asked for, or the inputs it is held with until the user
 * confirms (in the last two it is not called).
 */
type Expectation = Record<
  string,
  { inputs: Record<string, unknown>; message?: string } | { miss: string[] } | { confirm: Record<string, unknown> } | 'not_called'
>;

interface Board {
  board: TestSwitchboard;
  agents: Record<string, FakeAgent>;
}

let travel: Board;
let shop: Board;
let sessions = 0;

async function startBoard(file: string, replies: Record<string, { port: number; reply: Parameters<typeof startFakeAgent>[0] }>): Promise<Board> {
  const agents: Record<string, FakeAgent> = {};
  const urls: Record<number, string> = {};
  for (const [agentId, { port, reply }] of Object.entries(replies)) {
    agents[agentId] = await startFakeAgent(reply);
    urls[port] = agents[agentId]!.url;
  }
  // Every turn must reach the fakes: no agent opts in to caching (no cache_ttl_s), so neither its replies nor the answers are kept.
  const yaml = sampleRegistry(file, urls, { keepSideEffects: true }).replace(/^\s*cache_ttl_s:.*\n/gm, '');
  const board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  return { board, agents };
}

beforeAll(async () => {
  travel = await startBoard('agents_config.yaml', {
    hotel_agent: { port: 7101, reply: jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已预订。' }) },
    limo_agent: { port: 7102, reply: jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00' }, message: '已安排。' }) },
    flight_agent: { port: 7103, reply: jsonReply({ output: { flights: [{ flight_no: 'CA1501', price: 1200 }] }, message: '有航班。' }) },
    weather_agent: {
      port: 7104,
      reply: sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '晴。' } }),
    },
  });
  shop = await startBoard('examples/ecommerce/agents_config.yaml', {
    order_agent: { port: 7201, reply: jsonReply({ output: { order_id: 'A1001', status: 'shipped' }, message: '已发货。' }) },
    logistics_agent: { port: 7202, reply: jsonReply({ output: { order_id: 'A1001', events: [] }, message: '运输中。' }) },
    refund_agent: { port: 7203, reply: jsonReply({ output: { refund_id: 'RF-1', status: 'accepted' }, message: '退款已受理。' }) },
    invoice_agent: { port: 7204, reply: jsonReply({ output: { invoice_id: 'INV-1', status: 'sent' }, message: '发票已发送。' }) },
    product_faq_agent: { port: 7205, reply: jsonReply({ output: { answer: '有。' } }) },
  });
});

afterAll(async () => {
  for (const { board, agents } of [travel, shop]) {
    await board?.close();
    await Promise.all(Object.values(agents ?? {}).map((agent) => agent.close()));
  }
});

/** Runs one turn and checks what each named agent received (only the calls this turn made). */
async function expectTurn(target: Board, query: string, expected: Expectation, sessionId = `slots-${++sessions}`): Promise<ResponseState[]> {
  const before = new Map(Object.entries(target.agents).map(([agentId, agent]) => [agentId, agent.calls.length]));
  // One user per session: a city one session's turn taught the profile must not fill another session's booking here.
  const events = await target.board.chat(query, { sessionId, userId: sessionId });
  const asked = finalEvent(events).metadata.semantic_info ?? [];
  const held = finalEvent(events).metadata.confirmation ?? [];
  for (const [agentId, expectation] of Object.entries(expected)) {
    const calls = target.agents[agentId]!.calls.slice(before.get(agentId));
    const bodies = calls.map((call) => call.body as { inputs: Record<string, unknown>; message: string });
    if (expectation === 'not_called') {
      expect(bodies, `${agentId} for "${query}"`).toEqual([]);
    } else if ('confirm' in expectation) {
      expect(bodies, `${agentId} for "${query}"`).toEqual([]);
      expect(held.find((entry) => entry.sub_agent_id === agentId)?.inputs, `${agentId} held for confirmation after "${query}"`).toEqual(expectation.confirm);
    } else if ('miss' in expectation) {
      expect(bodies, `${agentId} for "${query}"`).toEqual([]);
      expect(asked.find((entry) => entry.sub_agent_id === agentId && entry.type === 'miss')?.keys, `${agentId} asks for, after "${query}"`).toEqual(expectation.miss);
    } else {
      expect(bodies.map((body) => body.inputs), `${agentId} inputs for "${query}"`).toEqual([expectation.inputs]);
      if (expectation.message !== undefined) expect(bodies[0]!.message).toContain(expectation.message);
    }
  }
  return events;
}

describe('travel registry', () => {
  it.each<[string, Expectation]>([
    ['帮我订个酒店，再查一下明天从北京到上海的机票', { hotel_agent: { miss: ['city', 'check_in_date'] }, flight_agent: { inputs: { origin: '北京', destination: '上海', date: TOMORROW } } }],
    ['查一下杭州明天的天气，再订一张12月3日从北京到上海的机票', { weather_agent: { inputs: { city: '杭州', date: TOMORROW } }, flight_agent: { inputs: { origin: '北京', destination: '上海', date: '2026-12-03' } } }],
    ['book a hotel, then find flights from Beijing to Shanghai tomorrow', { hotel_agent: { miss: ['city', 'check_in_date'] }, flight_agent: { inputs: { origin: 'Beijing', destination: 'Shanghai', date: TOMORROW } } }],
    ['check the weather in Shanghai, then book a hotel for tomorrow', { weather_agent: { inputs: { city: 'Shanghai' } }, hotel_agent: { miss: ['city'] } }],
    ['查一下北京的天气，再帮我订个酒店', { weather_agent: { inputs: { city: '北京' } }, hotel_agent: { miss: ['city', 'check_in_date'] } }],
    ['订北京的酒店和查上海的天气', { hotel_agent: { miss: ['check_in_date'] }, weather_agent: { inputs: { city: '上海' } } }],
    ['安排明天早上7点首都机场接机，再帮我订上海的酒店', { hotel_agent: { miss: ['check_in_date'] }, limo_agent: 'not_called' }],
    ['weather in Hangzhou tomorrow and a flight from Beijing to Shanghai on December 3', { weather_agent: { inputs: { city: 'Hangzhou', date: TOMORROW } }, flight_agent: { inputs: { origin: 'Beijing', destination: 'Shanghai', date: '2026-12-03' } } }],
    ['帮我订北京的酒店和查天气', { hotel_agent: { miss: ['check_in_date'] }, weather_agent: { inputs: { city: '北京' } } }],
    ['查询北京明天的天气和明天从北京到上海的航班', { weather_agent: { inputs: { city: '北京', date: TOMORROW } }, flight_agent: { inputs: { origin: '北京', destination: '上海', date: TOMORROW } } }],
    ['查询杭州明天的天气和12月3日从北京到上海的航班', { weather_agent: { inputs: { city: '杭州', date: TOMORROW } }, flight_agent: { inputs: { origin: '北京', destination: '上海', date: '2026-12-03' } } }],
    ['北京的酒店和上海的天气', { hotel_agent: { miss: ['check_in_date'] }, weather_agent: { inputs: { city: '上海' } } }],
    ['北京的酒店和天气', { hotel_agent: { miss: ['check_in_date'] }, weather_agent: { inputs: { city: '北京' } } }],
    ['hotel and weather in Beijing tomorrow', { hotel_agent: { confirm: { city: 'Beijing', check_in_date: TOMORROW } }, weather_agent: { inputs: { city: 'Beijing', date: TOMORROW } } }],
    ['订北京明天的酒店，再查一下天气', { hotel_agent: { confirm: { city: '北京', check_in_date: TOMORROW } }, weather_agent: { inputs: { city: '北京' } } }],
  ])('%s', async (query, expected) => {
    await expectTurn(travel, query, expected);
  });

  it('completes the parked booking from the bare answer of the next turn, and sends it only its own words', async () => {
    await expectTurn(travel, '帮我订个酒店，再查一下明天从北京到上海的机票', { hotel_agent: { miss: ['city', 'check_in_date'] } }, 'slots-answer');
    await expectTurn(travel, '上海，后天', { hotel_agent: { confirm: { city: '上海', check_in_date: DAY_AFTER } }, flight_agent: 'not_called' }, 'slots-answer');
    await expectTurn(travel, '确认', { hotel_agent: { inputs: { city: '上海', check_in_date: DAY_AFTER }, message: '帮我订个酒店，上海，后天' }, flight_agent: 'not_called' }, 'slots-answer');
  });

  it('gives a parked booking the answer of this turn, not the city of a new request beside it', async () => {
    await expectTurn(travel, '帮我订个酒店', { hotel_agent: { miss: ['city', 'check_in_date'] } }, 'slots-beside');
    await expectTurn(travel, '明天，再查一下上海的天气', { weather_agent: { inputs: { city: '上海', date: TOMORROW } }, hotel_agent: { miss: ['city'] } }, 'slots-beside');
    await expectTurn(travel, '北京', { hotel_agent: { confirm: { city: '北京', check_in_date: TOMORROW } } }, 'slots-beside');
  });
});

describe('e-commerce registry', () => {
  it.each<[string, Expectation]>([
    ['查一下订单 A1001 的状态，还有物流到哪了', { order_agent: { inputs: { order_id: 'A1001' } }, logistics_agent: { inputs: { order_id: 'A1001' } } }],
    ['查一下订单 A1001 的状态，再帮我退款', { order_agent: { inputs: { order_id: 'A1001' } }, refund_agent: { miss: ['order_id', 'refund_reason'] } }],
    ['查一下订单 2024051812345678 的状态，还有物流到哪了', { order_agent: { inputs: { order_id: '2024051812345678' } }, logistics_agent: { inputs: { order_id: '2024051812345678' } } }],
    ['查一下订单 2024051812345678 的状态，再帮我退款', { order_agent: { inputs: { order_id: '2024051812345678' } }, refund_agent: { miss: ['order_id', 'refund_reason'] } }],
    ['check the status of order 2024051812345678, and where is the parcel now', { order_agent: { inputs: { order_id: '2024051812345678' } }, logistics_agent: { inputs: { order_id: '2024051812345678' } } }],
    ['check order A1001, and I want a refund', { order_agent: { inputs: { order_id: 'A1001' } }, refund_agent: { miss: ['order_id', 'refund_reason'] } }],
    ['订单 1234567890123 我要退款，质量问题，还有包裹到哪了', { refund_agent: { confirm: { order_id: '1234567890123', refund_reason: '质量问题' } }, logistics_agent: { inputs: { order_id: '1234567890123' } } }],
    [
      '订单 2024051812345678 开发票发到 zhang.san@example.com',
      { invoice_agent: { inputs: { order_id: '2024051812345678', email: 'zhang.san@example.com' }, message: '发到 zhang.san@example.com' } },
    ],
    [
      'send the invoice for order 2024051812345678 to zhang.san@example.com, thanks',
      { invoice_agent: { inputs: { order_id: '2024051812345678', email: 'zhang.san@example.com' }, message: 'to zhang.san@example.com' } },
    ],
  ])('%s', async (query, expected) => {
    await expectTurn(shop, query, expected);
  });

  it('never gives a refund an order id named only for another request; the answers complete it', async () => {
    await expectTurn(shop, '订单号 1234567890123 的包裹到哪了？我还要退款', { logistics_agent: { inputs: { order_id: '1234567890123' } }, refund_agent: { miss: ['order_id', 'refund_reason'] } }, 'slots-refund');
    await expectTurn(shop, '质量问题', { refund_agent: { miss: ['order_id'] } }, 'slots-refund');
    await expectTurn(shop, '1234567890123', { refund_agent: { confirm: { order_id: '1234567890123', refund_reason: '质量问题' } } }, 'slots-refund');
  });
});
