import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegistryFile } from '../../registry/index.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import { createExampleRanker } from './example-ranker.js';
import { card, ecommerceCards, patternSpec, snapshotOf, travelCards } from '../../../test/support/registry-fixtures.js';
import { readTurnQuery } from '../../understanding/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('example ranker on the travel sample registry', () => {
  let snapshot: RegistrySnapshot;
  const ranker = createExampleRanker();
  const agentsOf = (query: string) => ranker.rank(readTurnQuery(query), snapshot).intents.map((intent) => intent.agentId);
  beforeAll(async () => {
    const loaded = await loadRegistryFile(`${ROOT}agents_config.yaml`, { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    snapshot = loaded.snapshot;
    ranker.prepare(snapshot);
  });

  it('routes paraphrases that avoid every keyword, in both languages', () => {
    expect(agentsOf('成都这几天冷不冷，要带厚衣服吗')).toEqual(['weather_agent']);
    expect(agentsOf('I need a place to sleep in Shanghai tonight')).toEqual(['hotel_agent']);
    expect(agentsOf('后天早上要去白云机场，帮我叫辆车送过去')).toEqual(['limo_agent']);
  });

  it('keeps both requests joined by 和 in one clause, each with words of its own', () => {
    expect(agentsOf('查询北京明天的天气和明天从北京到上海的航班').sort()).toEqual(['flight_agent', 'weather_agent']);
    expect(agentsOf('明天北京的天气和上海的酒店').sort()).toEqual(['hotel_agent', 'weather_agent']);
  });

  it('does not add agents for attribute-only clauses next to a keyword', () => {
    expect(agentsOf('帮我订北京的酒店，评分在4分以上，给我推荐一家吧')).toEqual(['hotel_agent']);
    expect(agentsOf('订明天从上海到北京的机票，要靠窗的座位，尽量上午出发')).toEqual(['flight_agent']);
    expect(agentsOf('帮我订北京的酒店，评分在4分以上，再给我推荐一家吧')).toEqual(['hotel_agent']);
    expect(agentsOf('北京明天天气怎么样，然后推荐点好玩的')).toEqual(['weather_agent']);
  });

  it('beside a keyword, routes a clause the user made a request of its own (再, 另外 …) on its own words', () => {
    expect(agentsOf('订一张明天飞上海的票，再在上海订个酒店').sort()).toEqual(['flight_agent', 'hotel_agent']);
  });

  it('reads a keyword after 去/到/from/to as a place, not a request, when the rest of the clause names another card', () => {
    expect(agentsOf('再帮我叫个车去酒店')).toEqual(['limo_agent']);
    expect(agentsOf('I need a ride to my hotel')).toEqual(['limo_agent']);
    // Nothing else requested: the keyword still routes.
    expect(agentsOf('我要去酒店住两晚')).toEqual(['hotel_agent']);
  });

  it('routes a value only one card asks for as that card, and a shared value as nothing', () => {
    // 白云机场 is only the transfer card's airport; cities belong to several cards.
    expect(agentsOf('白云机场')).toEqual(['limo_agent']);
    expect(agentsOf('上海')).toEqual([]);
  });

  it('keeps one agent per request of a multi-request turn', () => {
    expect(new Set(agentsOf('帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气'))).toEqual(new Set(['hotel_agent', 'limo_agent', 'weather_agent']));
  });

  it('keeps both requests a conjunction joins inside one clause, whichever is more likely', () => {
    expect(new Set(agentsOf('北京的酒店和天气'))).toEqual(new Set(['hotel_agent', 'weather_agent']));
    expect(new Set(agentsOf('上海的天气和酒店'))).toEqual(new Set(['hotel_agent', 'weather_agent']));
    expect(new Set(agentsOf('hotel and weather in Beijing tomorrow'))).toEqual(new Set(['hotel_agent', 'weather_agent']));
  });

  it('keeps out what no card covers', () => {
    expect(agentsOf('给我讲个笑话吧')).toEqual([]);
    expect(agentsOf('tell me a joke')).toEqual([]);
    expect(agentsOf('怎么用Python读取Excel文件')).toEqual([]);
  });

  it('a keyword inside a slot value is a place, not a request ("首都机场" is not a transfer)', () => {
    expect(agentsOf('北京首都机场附近的酒店')).toEqual(['hotel_agent']);
  });

  it('gives pre-selection candidates: keyword cards first, then the most probable, never more than the limit', () => {
    const candidates = ranker.candidates(readTurnQuery('订北京的酒店，再看看天气'), snapshot, 3);
    expect(candidates.length).toBe(3);
    expect(candidates.slice(0, 2).sort()).toEqual(['hotel_agent', 'weather_agent']);
  });
});

describe('example ranker on the e-commerce registry', () => {
  const ranker = createExampleRanker();
  const fixtures = snapshotOf(ecommerceCards());
  let sample: RegistrySnapshot;
  const routed = (query: string, snapshot: RegistrySnapshot) =>
    Object.fromEntries(ranker.rank(readTurnQuery(query), snapshot).intents.map((intent) => [intent.agentId, intent.clause]));
  beforeAll(async () => {
    const loaded = await loadRegistryFile(`${ROOT}examples/ecommerce/agents_config.yaml`, { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    sample = loaded.snapshot;
  });

  it('routes a clause to the card its own words ask for, even when the next clause names another card', () => {
    for (const snapshot of [fixtures, sample]) {
      expect(routed('查一下订单 2024051812345678 的状态，还有物流到哪了', snapshot)).toEqual({ order_agent: '查一下订单 2024051812345678 的状态', logistics_agent: '物流到哪了' });
      expect(routed('查一下订单 2024051812345678 的状态，再帮我退款', snapshot)).toEqual({ order_agent: '查一下订单 2024051812345678 的状态', refund_agent: '帮我退款' });
      expect(routed('check the status of order 2024051812345678, and I want a refund', snapshot)).toEqual({
        order_agent: 'check the status of order 2024051812345678',
        refund_agent: 'I want a refund',
      });
    }
    expect(routed('check the status of order 2024051812345678, and where is my package now', fixtures)).toEqual({
      order_agent: 'check the status of order 2024051812345678',
      logistics_agent: 'where is my package now',
    });
    expect(routed('check the status of order 2024051812345678, and where is the parcel now', sample)).toEqual({
      order_agent: 'check the status of order 2024051812345678',
      logistics_agent: 'where is the parcel now',
    });
  });

  it('a card keyword that only labels a value does not add that card on its own', () => {
    for (const snapshot of [fixtures, sample]) {
      // The order number is the parcel's: the clause holding it asks nothing of the order card.
      expect(Object.keys(routed('我的快递到哪了，订单号 2024051812345678', snapshot))).toEqual(['logistics_agent']);
      expect(Object.keys(routed('订单号 2024051812345678 的包裹到哪了', snapshot))).toEqual(['logistics_agent']);
    }
    expect(Object.keys(routed('订单 1234567890 什么时候能送到', sample))).toEqual(['logistics_agent']);
  });

  it('pre-selection still shows the card a labelling keyword names, for the model to judge', () => {
    // Ranked by probability alone the third card would be the refund one.
    const candidates = ranker.candidates(readTurnQuery('订单 2024051812345678 开发票，还有物流到哪了'), sample, 3);
    expect(candidates.sort()).toEqual(['invoice_agent', 'logistics_agent', 'order_agent']);
  });
});

describe('example ranker training', () => {
  it('trains once per snapshot and follows a new snapshot (hot reload)', () => {
    const ranker = createExampleRanker();
    const first = snapshotOf(travelCards());
    ranker.prepare(first);
    ranker.prepare(first);
    expect(ranker.rank(readTurnQuery('明天会下雨吗'), first).intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    const second = snapshotOf([
      ...travelCards(),
      card({ id: 'train_agent', name: '火车票', description: '火车票与高铁票查询预订', keywords: ['高铁'], examples: ['帮我买一张去上海的火车票', '查一下明天的动车'] }),
    ]);
    expect(ranker.rank(readTurnQuery('帮我买张火车票'), second).intents.map((intent) => intent.agentId)).toEqual(['train_agent']);
    expect(ranker.rank(readTurnQuery('帮我买张火车票'), first).intents.map((intent) => intent.agentId)).not.toContain('train_agent');
  });

  it("routes a clause that is one of a card's own examples there, though it holds another card's keyword", () => {
    const ranker = createExampleRanker();
    const hr = snapshotOf([
      card({ id: 'leave_agent', name: '请假申请', description: '提交年假、病假等请假申请', keywords: ['请假', '年假', '病假'], examples: ['我想请三天年假', '明天请病假', '下周一开始休年假'] }),
      card({ id: 'policy_agent', name: '制度问答', description: '回答公司考勤、休假、福利制度问题', keywords: ['制度', '规定', '福利'], examples: ['年假有几天', '加班怎么算', '迟到扣钱吗'] }),
      card({ id: 'payslip_agent', name: '工资条', description: '查询某个月的工资条', keywords: ['工资条', '工资'], examples: ['查一下十月的工资条', '上个月工资发了多少'] }),
    ]);
    const agentsOf = (query: string) => ranker.rank(readTurnQuery(query), hr).intents.map((intent) => intent.agentId);
    expect(agentsOf('年假有几天')).toEqual(['policy_agent']);
    expect(agentsOf('我想请三天年假')).toEqual(['leave_agent']);
    expect(agentsOf('请两天病假')).toEqual(['leave_agent']);
  });

  it("keeps a keyword's clause as the request when a value in another clause names the same card", () => {
    const ranker = createExampleRanker();
    const telecom = snapshotOf([
      card({ id: 'sim_agent', name: '补办SIM卡', description: '手机卡丢失或损坏时补办新卡', keywords: ['补卡', '换卡'], examples: ['我手机卡丢了要补卡', '补办一张SIM卡'],
        requiredKeys: [{ key: 'id_card', description: '身份证号', widget: '', extract: patternSpec('([0-9]{17}[0-9Xx])') }] }),
      card({ id: 'usage_agent', name: '流量查询', description: '查询剩余流量', keywords: ['流量'], examples: ['我还剩多少流量', '查一下流量'] }),
    ]);
    for (const query of ['我要补卡，身份证号11010519491231002X，另外查一下还剩多少流量', '身份证号11010519491231002X，我要补卡，另外查一下还剩多少流量']) {
      const sim = ranker.rank(readTurnQuery(query), telecom).intents.find((intent) => intent.agentId === 'sim_agent');
      expect(sim).toMatchObject({ clause: '我要补卡', keywords: ['补卡'] });
    }
  });

  it('ranks nothing for an empty query or an empty registry', () => {
    const ranker = createExampleRanker();
    expect(ranker.rank(readTurnQuery(''), snapshotOf(travelCards())).intents).toEqual([]);
    expect(ranker.rank(readTurnQuery('订酒店'), snapshotOf([])).intents).toEqual([]);
  });

  it('ranks only enabled cards', () => {
    const ranker = createExampleRanker();
    const cards = travelCards().map((entry) => (entry.id === 'hotel_agent' ? { ...entry, enabled: false } : entry));
    expect(ranker.rank(readTurnQuery('帮我订北京的酒店'), snapshotOf(travelCards())).intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
    expect(ranker.rank(readTurnQuery('帮我订北京的酒店'), snapshotOf(cards)).intents.map((intent) => intent.agentId)).not.toContain('hotel_agent');
  });
});

describe('supervisor.synonyms', () => {
  it('a word users say instead of a keyword routes like the keyword, as a last resort', () => {
    const ranker = createExampleRanker();
    const cards = travelCards();
    const plain = snapshotOf(cards);
    const base = snapshotOf(cards);
    const withSynonyms = { ...base, supervisor: { ...base.supervisor, synonyms: { 酒店: ['落脚处', '歇脚的地儿'] } } };
    expect(ranker.rank(readTurnQuery('找个歇脚的地儿'), plain).intents).toEqual([]);
    expect(ranker.rank(readTurnQuery('找个歇脚的地儿'), withSynonyms).intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
  });
});

describe('example ranker on a keyword-free registry', () => {
  let snapshot: RegistrySnapshot;
  const ranker = createExampleRanker();
  beforeAll(async () => {
    const loaded = await loadRegistryFile(`${ROOT}examples/assistant/agents_config.yaml`, { env: {} });
    if (!loaded.ok) throw new Error('assistant registry invalid');
    snapshot = loaded.snapshot;
  });
  const agents = (query: string) => ranker.rank(readTurnQuery(query), snapshot).intents.map((intent) => intent.agentId);

  it('routes one request told in several clauses to one agent, read as a whole', () => {
    // Clause by clause this was three agents: paying, declined card, due date.
    expect(agents("i tried to pay the electric bill. the payment didn't go through, when is it due")).toHaveLength(1);
    expect(agents("i'm flying to denver tomorrow. is my flight on time")).toEqual(['flight_status_agent']);
    expect(agents('i lost my wallet yesterday. my credit card was in it, what should i do')).toEqual(['lost_card_agent']);
  });

  it('keeps out a question that shares a word or two with one card but is told in none of its terms', () => {
    // "bread" is on the shopping list's examples; nothing else of the question is.
    expect(agents('how do i bake sourdough bread')).toEqual([]);
    expect(agents('is it going to rain in boston tomorrow')).toEqual(['weather_agent']);
    expect(agents('send 40 dollars to my savings')).toEqual(['transfer_agent']);
  });

  it('still routes each request the user asked for: joined with "and also", or an order of its own', () => {
    expect(agents("what's my checking balance, and also transfer 50 dollars to savings").sort()).toEqual(['balance_agent', 'transfer_agent']);
    expect(agents('freeze my account and report my card stolen').sort()).toEqual(['freeze_account_agent', 'lost_card_agent']);
    expect(agents('pay my phone bill, remind me to call mom at 5').sort()).toEqual(['pay_bill_agent', 'reminder_agent']);
  });
});

