/**
 * Several values for one key, over real HTTP on the demo registry: a read-only
 * look-up runs once per value, in parallel, and the answer holds each; a
 * booking (side effects) asks which value it is, never books one of them and
 * drops the other without a word.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date('2026-11-23T10:00:00+08:00');
const TOMORROW = '2026-11-24';

let weather: FakeAgent;
let hotel: FakeAgent;
let others: FakeAgent;
let board: TestSwitchboard;
/** When each weather call arrived (ms). */
const arrivals: number[] = [];

beforeAll(async () => {
  weather = await startFakeAgent((body) => {
    arrivals.push(Date.now());
    const { city } = (body as { inputs: { city: string } }).inputs;
    return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date: TOMORROW, condition: `${city}晴`, high: 8, low: -2 }] }, message: `${city}明天晴。` }, intervalMs: 150 });
  });
  hotel = await startFakeAgent(jsonReply({ output: { hotels: [], booking_id: 'BK-1' }, message: '已预订。' }));
  others = await startFakeAgent(jsonReply());
  const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: others.url, 7103: others.url, 7104: weather.url }, { keepSideEffects: true, answerCacheTtlS: 0 }).replace(/^\s*cache_ttl_s:.*\n/gm, '');
  board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
});

afterAll(async () => {
  await board.close();
  await Promise.all([weather.close(), hotel.close(), others.close()]);
});

beforeEach(() => {
  weather.calls.length = 0;
  arrivals.length = 0;
  hotel.calls.length = 0;
});

const citiesAsked = () => weather.calls.map((call) => (call.body as { inputs: { city: string } }).inputs.city);
const outcomeOf = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'done')?.metadata.state?.outcome;

it.each([
  ['北京和上海明天的天气', ['北京', '上海']],
  ['查一下明天北京的天气，再告诉我上海明天的天气', ['北京', '上海']],
  ['weather in Beijing and Shanghai tomorrow', ['Beijing', 'Shanghai']],
])('"%s" looks up each city, and the answer holds both', async (query, cities) => {
  const id = `several-${query.length}-${/\p{Script=Han}/u.test(query) ? 'zh' : 'en'}`;
  const events = await board.chat(query, { sessionId: id, userId: id });
  expect(citiesAsked().sort()).toEqual([...cities].sort());
  for (const call of weather.calls) expect((call.body as { inputs: { date?: string } }).inputs.date).toBe(TOMORROW);
  // Each task's message is its own city's request.
  const messages = weather.calls.map((call) => (call.body as { message: string }).message);
  for (const city of cities) expect(messages.find((message) => message.includes(city)), `message for ${city}`).toBeDefined();
  for (const message of messages) expect(cities.filter((city) => message.includes(city)), message).toHaveLength(1);
  const final = finalEvent(events).content;
  for (const city of cities) expect(final).toContain(`${city}明天晴`);
  expect(outcomeOf(events)).toBe('completed');
});

it('runs the look-ups of the several values in parallel', async () => {
  await board.chat('北京和上海明天的天气', { sessionId: 'several-parallel', userId: 'several-parallel' });
  expect(arrivals).toHaveLength(2);
  // Each reply takes ≥ 150 ms: the second call arrives before the first reply could have ended.
  expect(Math.abs(arrivals[1]! - arrivals[0]!)).toBeLessThan(150);
});

it('asks which city a booking given two is for, books neither yet, and holds the one chosen', async () => {
  const events = await board.chat('帮我订北京和上海的酒店，明天入住', { sessionId: 'several-book', userId: 'several-book' });
  expect(hotel.calls).toHaveLength(0);
  expect((finalEvent(events).metadata.confirmation ?? []).length).toBe(0);
  const final = finalEvent(events).content;
  expect(final).toContain('北京');
  expect(final).toContain('上海');
  expect(final).toContain('哪一个');
  expect(outcomeOf(events)).not.toBe('completed');
  const chosen = await board.chat('上海', { sessionId: 'several-book', userId: 'several-book' });
  expect(finalEvent(chosen).metadata.confirmation?.map((item) => item.inputs)).toEqual([{ city: '上海', check_in_date: TOMORROW }]);
  expect(hotel.calls).toHaveLength(0);
});

it('keeps one city when the other names no request ("我在北京，想知道上海明天的天气") and a flight\'s two cities apart', async () => {
  await board.chat('我在北京，想知道上海明天的天气', { sessionId: 'several-one', userId: 'several-one' });
  expect(citiesAsked()).toEqual(['上海']);
  const flight = await board.chat('明天从北京到上海的航班', { sessionId: 'several-flight', userId: 'several-flight' });
  expect(stageEvents(flight, 'agent_start')).toHaveLength(1);
});
