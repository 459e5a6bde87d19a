/**
 * What a front end needs to render a slot request, in the user's language:
 * `semantic_info` carries index-aligned `key_options` (an enum key's values,
 * `[]` for free input), and an English turn names agents by their English
 * registry texts (agent names, key descriptions) while a Chinese turn keeps the
 * Chinese ones. A value outside a
 * key's enum is `invalid`, named in the answer with the allowed values, and the
 * request goes on once a listed value is given.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import { finalEvent, type TestSwitchboard } from '../support/switchboard-harness.js';

let running: DemoSwitchboard;
let board: TestSwitchboard;

beforeAll(async () => {
  running = await startDemoSwitchboard();
  board = running.board;
});
afterAll(() => running?.close());

it('semantic_info carries the enum values of each key, index-aligned, [] for free input', async () => {
  const events = await board.chat('帮我订酒店', { sessionId: 'options-1' });
  const [info] = finalEvent(events).metadata.semantic_info ?? [];
  expect(info?.keys).toEqual(['city', 'check_in_date']);
  expect(info?.key_options).toHaveLength(2);
  expect(info?.key_options[0]).toEqual(['北京', '上海', '广州', '深圳', '杭州', '成都', '西安']);
  expect(info?.key_options[1]).toEqual([]);
  expect(info?.fe_widgets_suggestion).toEqual(['city_selector', 'date_picker']);
});

it('key_options follow the query language: English values to an English query, Chinese ones to a Chinese query', async () => {
  const [english] = finalEvent(await board.chat('Book a hotel', { sessionId: 'options-en' })).metadata.semantic_info ?? [];
  expect(english?.key_options[0]).toEqual(['Beijing', 'Shanghai', 'Guangzhou', 'Shenzhen', 'Hangzhou', 'Chengdu']);
  expect(english?.key_descriptions).toEqual(['check-in city', 'check-in date']);
});

it('the demo agents answer an English request in English and a Chinese one in Chinese', async () => {
  const han = /[\u3400-\u9fff]/;
  const weather = finalEvent(await board.chat("What's the weather in Beijing tomorrow?", { sessionId: 'answer-en' })).content;
  expect(weather).toMatch(/Beijing \d{4}-\d{2}-\d{2}: [a-z ,]+, -?\d+ to -?\d+°C/);
  expect(weather).not.toMatch(han);
  const asked = finalEvent(await board.chat('Book a hotel in Shanghai', { sessionId: 'answer-en-2' }));
  expect(asked.content).not.toMatch(han);
  const booked = finalEvent(await board.chat('book a hotel in Shanghai for tomorrow', { sessionId: 'answer-en-3' })).content;
  expect(booked).toMatch(/Found 3 hotels in Shanghai \(check-in \d{4}-\d{2}-\d{2}, 1 night\) and booked .+, order HTL-/);
  const chinese = finalEvent(await board.chat('北京明天天气怎么样', { sessionId: 'answer-zh' })).content;
  expect(chinese).toMatch(/北京 \d{4}-\d{2}-\d{2}：/);
});

it('an English turn uses the English name; a Chinese turn the Chinese one', async () => {
  const english = await board.chat('book a hotel in Shanghai for tomorrow', { sessionId: 'lang-en' });
  const englishText = english.map((event) => event.content).join('\n');
  expect(englishText).toContain('Hotel booking');
  expect(englishText).not.toContain('酒店服务');

  const chinese = await board.chat('帮我订上海的酒店，明天入住', { sessionId: 'lang-zh' });
  const chineseText = chinese.map((event) => event.content).join('\n');
  expect(chineseText).toContain('酒店服务');
  expect(chineseText).not.toContain('Hotel booking');
});

it('/v1/agents shows the default texts and the per-language maps', async () => {
  const body = (await (await fetch(`${board.url}/v1/agents`)).json()) as { agents: { id: string; name: string; names?: Record<string, string>; descriptions?: Record<string, string>; required_semantic_keys?: Record<string, unknown>[] }[] };
  const hotel = body.agents.find((agent) => agent.id === 'hotel_agent');
  expect(hotel?.name).toBe('酒店服务');
  expect(hotel?.names).toEqual({ zh: '酒店服务', en: 'Hotel booking' });
  expect(hotel?.descriptions?.en).toMatch(/^Hotel search/);
  expect(hotel?.required_semantic_keys?.[0]).toMatchObject({ key: 'city', description: '入住城市', descriptions: { zh: '入住城市', en: 'check-in city' } });
});

it.each([
  ['zh', '帮我订南京的酒店，明天入住', '暂不支持 南京，可选：北京、上海、广州、深圳、杭州、成都、西安', '上海', '需要您补充'],
  ['en', 'book a hotel in Nanjing for tomorrow', 'Nanjing is not supported; choose one of: Beijing, Shanghai, Guangzhou, Shenzhen, Hangzhou, Chengdu', 'Shanghai', 'needs'],
])('(%s) a city outside the enum is invalid, named with the allowed values; a listed one then goes on', async (language, query, sentence, listed, askWord) => {
  const sessionId = `invalid-${language}`;
  const events = await board.chat(query, { sessionId });
  const final = finalEvent(events);
  expect(final.content).toContain(sentence);
  expect(final.content).not.toContain(askWord);
  expect(final.metadata.semantic_info).toEqual([
    expect.objectContaining({
      type: 'invalid',
      sub_agent_id: 'hotel_agent',
      keys: ['city'],
      key_descriptions: [language === 'zh' ? '入住城市' : 'check-in city'],
      fe_widgets_suggestion: ['city_selector'],
      key_options: [language === 'zh' ? ['北京', '上海', '广州', '深圳', '杭州', '成都', '西安'] : ['Beijing', 'Shanghai', 'Guangzhou', 'Shenzhen', 'Hangzhou', 'Chengdu']],
    }),
  ]);

  // The user picks a listed city: the parked request runs with it and the date given before.
  const next = finalEvent(await board.chat(listed, { sessionId }));
  expect(next.metadata.semantic_info ?? []).toEqual([]);
  expect(next.metadata.state?.tasks).toEqual([expect.objectContaining({ agent: 'hotel_agent', status: 'completed' })]);
  expect(next.content).toContain(listed);
});

it('a reply that is only an unlisted name, to a request asking for the city, is invalid too', async () => {
  await board.chat('帮我订酒店，明天入住', { sessionId: 'invalid-reply' });
  const final = finalEvent(await board.chat('南京', { sessionId: 'invalid-reply' }));
  expect(final.content).toContain('暂不支持 南京');
  expect(final.metadata.semantic_info?.map((info) => [info.type, info.keys])).toEqual([['invalid', ['city']]]);
});

it('an English turn asks for keys by their English descriptions', async () => {
  // A user seen for the first time, so no key comes from a profile.
  const final = finalEvent(await board.chat('book a hotel', { sessionId: 'lang-keys-en', userId: 'en-first-time' }));
  expect(final.metadata.semantic_info?.[0]?.key_descriptions).toEqual(['check-in city', 'check-in date']);
  expect(final.content).toContain('check-in city (e.g. Beijing, Shanghai, Guangzhou)');
  expect(final.content).not.toMatch(/[\u4e00-\u9fff]/);
});
