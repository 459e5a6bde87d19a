import { describe, expect, it } from 'vitest';
import { createAgentRanker } from './agent-ranker.js';
import { card, ecommerceCards, snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';

const travel = snapshotOf(travelCards());
const ecommerce = snapshotOf(ecommerceCards());

describe('createAgentRanker on the travel cards', () => {
  const ranker = createAgentRanker();

  it.each([
    ['帮我订北京的酒店，明天早上7点到首都机场接机', ['hotel_agent', 'limo_agent']],
    ['帮我订北京的酒店，安排明天早上7点首都机场接机，再告诉我北京明天的天气', ['hotel_agent', 'limo_agent', 'weather_agent']],
    ['book a hotel in Shanghai', ['hotel_agent']],
    ['从北京飞上海的机票', ['flight_agent']],
    ['帮我订北京的酒店', ['hotel_agent']],
    ['明天北京会下雨吗', ['weather_agent']],
    ['I need a flight to Shanghai tomorrow', ['flight_agent']],
    ["what's the weather like in Beijing", ['weather_agent']],
    ['Book a hotel in Beijing and also arrange an airport pickup at 7am', ['hotel_agent', 'limo_agent']],
    ['订酒店和机票', ['hotel_agent', 'flight_agent']],
    ['BOOK A HOTEL', ['hotel_agent']],
    ['ｈｏｔｅｌ in Beijing', ['hotel_agent']],
  ])('%s → %j', (query, expected) => {
    const result = ranker.rank(query, travel);
    expect(result.intents.map((intent) => intent.agentId).sort()).toEqual([...expected].sort());
    expect(result.confidence).toBe('high');
  });

  it.each([
    '今天股票怎么样',
    'write me a poem',
    '上海',
    '北京，明天',
    '明天首都机场7点',
    '',
    '   ',
    '你好',
    'hotelier conference',
    '帮我订',
  ])('%j matches no card', (query) => {
    const result = ranker.rank(query, travel);
    expect(result.intents).toEqual([]);
    expect(result.confidence).toBe('low');
  });

  it('ignores a keyword that is part of a longer slot value', () => {
    const withAirportKeyword = snapshotOf([...travelCards().slice(0, 2), card({ id: 'airport_info', name: '机场信息', description: 'airport info', keywords: ['机场'] })]);
    const result = ranker.rank('明天早上7点到首都机场接机', withAirportKeyword);
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['limo_agent']);
    expect(ranker.rank('机场有几个航站楼', withAirportKeyword).intents.map((intent) => intent.agentId)).toEqual(['airport_info']);
  });

  it('reports the clause each intent came from and its keywords', () => {
    const result = ranker.rank('帮我订北京的酒店，再告诉我北京明天的天气', travel);
    const hotel = result.intents.find((intent) => intent.agentId === 'hotel_agent')!;
    const weather = result.intents.find((intent) => intent.agentId === 'weather_agent')!;
    expect(hotel.clause).toBe('帮我订北京的酒店');
    expect(hotel.keywords).toEqual(['酒店']);
    expect(weather.clause).toBe('告诉我北京明天的天气');
    expect(weather.score).toBeGreaterThan(0.75);
    expect(weather.score).toBeLessThanOrEqual(1);
  });

  it('matches by similarity to examples when no keyword is present', () => {
    const snapshot = snapshotOf([
      card({ id: 'translate_agent', name: '翻译助手', description: '把句子翻译成别的语言', examples: ['把这句话翻成英文', 'translate this sentence into French'] }),
      ...travelCards(),
    ]);
    const result = ranker.rank('请把这句话翻成英文', snapshot);
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['translate_agent']);
    expect(result.intents[0]!.keywords).toEqual([]);
    expect(result.intents[0]!.score).toBeLessThan(0.75);
    expect(result.confidence).not.toBe('high');
    expect(ranker.rank('translate this into French please', snapshot).intents.map((intent) => intent.agentId)).toEqual(['translate_agent']);
  });

  it('only ranks enabled cards', () => {
    const cards = travelCards().map((entry) => (entry.id === 'hotel_agent' ? { ...entry, enabled: false } : entry));
    expect(ranker.rank('帮我订北京的酒店', snapshotOf(cards)).intents).toEqual([]);
  });

  it('keeps one index per snapshot and follows a new snapshot', () => {
    expect(ranker.rank('找个住宿', travel).intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
    const renamed = snapshotOf(
      travelCards().map((entry) => (entry.id === 'hotel_agent' ? { ...entry, keywords: ['lodging'] } : entry)),
      'v2',
    );
    expect(ranker.rank('找个住宿', renamed).intents).toEqual([]);
    expect(ranker.rank('lodging in Beijing', renamed).intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
    expect(ranker.rank('找个住宿', travel).intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
  });

  it('returns nothing for a snapshot with no enabled cards', () => {
    expect(ranker.rank('帮我订酒店', snapshotOf([])).intents).toEqual([]);
  });
});

describe('createAgentRanker on the e-commerce cards', () => {
  const ranker = createAgentRanker();

  it.each([
    ['我的包裹到哪了', ['logistics_agent']],
    ['我要退款', ['refund_agent']],
    ['帮我开个发票，邮箱a@b.com', ['invoice_agent']],
    ['这款衣服尺码怎么选', ['product_faq_agent']],
    ['I want a refund for my order 1234567890123', ['refund_agent', 'order_agent']],
  ])('%s → %j', (query, expected) => {
    expect(ranker.rank(query, ecommerce).intents.map((intent) => intent.agentId).sort()).toEqual([...expected].sort());
  });

  it.each(['质量问题', '今天股票怎么样', 'tell me a joke'])('%j matches no card', (query) => {
    expect(ranker.rank(query, ecommerce).intents).toEqual([]);
  });
});

describe('ranking 500 cards', () => {
  it('builds the index once and ranks against it', () => {
    const base = travelCards();
    const many = Array.from({ length: 500 }, (_, index) => {
      const template = base[index % base.length]!;
      return { ...template, id: `${template.id}_${index}`, keywords: [...template.keywords, `服务${index}号`, `topic${index}`] };
    });
    const snapshot = snapshotOf(many);
    const ranker = createAgentRanker();
    const result = ranker.rank('topic42 请帮我处理', snapshot);
    expect(result.intents[0]!.agentId).toBe('flight_agent_42');
    const multi = ranker.rank('帮我订北京的酒店，明天早上7点到首都机场接机', snapshot);
    expect(multi.intents).toHaveLength(250);
  });
});

describe('a clause named by a keyword', () => {
  it('does not also go to a card that is only similar and explains it less', () => {
    const cards = [
      card({ id: 'hotel_agent', name: 'Hotels', description: 'Hotel search and booking by city and date.', keywords: ['hotel'], examples: ['book a hotel in Shanghai'] }),
      card({
        id: 'limo_agent',
        name: 'Airport transfer',
        description: 'Airport pickup; can drive to the hotel booked upstream.',
        keywords: ['airport transfer', 'pickup'],
        examples: ['book an airport transfer in Shanghai tomorrow'],
      }),
    ];
    const result = createAgentRanker().rank('book a hotel in Shanghai tomorrow', snapshotOf(cards));
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
  });
});
