/**
 * The semantic cache of hot questions over real HTTP (offline mode; the LLM
 * mode case is in answer-cache-llm.test.ts): the sample registry, whose
 * weather agent opted in to caching with `cache_ttl_s`. A near-duplicate
 * question in another session of another user is answered from the kept
 * answer without any agent call, and still tells the client what the agent
 * answered (agent_start, agent_done with `cached: true`); other inputs, a
 * registry edit, the TTL (the shorter of `answer_cache_ttl_s` and the agent's
 * `cache_ttl_s`), a failed turn and side effects all miss; an answer that used
 * the user's profile is kept per user. An agent without `cache_ttl_s` is
 * never answered from the cache (answer-cache-opt-in.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;
const doneState = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'done')!.metadata.state!;

/** The weather agent: answers the city and date it is asked for; `failing` cities fail. */
function startWeather(failing: Set<string>): Promise<FakeAgent> {
  return startFakeAgent((body) => {
    const { city, date } = (body as { inputs: { city: string; date?: string } }).inputs;
    if (failing.has(city)) return sseReply({ result: { status: 'failed', message: '天气服务暂不可用' } });
    return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date: date ?? '2026-11-22', condition: '晴', high: 8, low: -2 }] }, message: `${city}${date ?? ''}晴。` } });
  });
}

/** The sample registry; `ttl` sets answer_cache_ttl_s, `weatherTtl` the weather agent's cache_ttl_s (300 in the sample). */
function registry(urls: Record<number, string>, ttl?: number, weatherTtl?: number): string {
  let yaml = sampleRegistry('agents_config.yaml', urls, { keepSideEffects: true, ...(ttl !== undefined ? { answerCacheTtlS: ttl } : {}) });
  if (weatherTtl !== undefined) yaml = yaml.replace(/^(\s+)cache_ttl_s: 300\b/m, `$1cache_ttl_s: ${weatherTtl}`);
  return yaml;
}

/** The stages of a turn in order, streamed answer deltas and agent progress left out. */
const stages = (events: readonly ResponseState[]) =>
  events.filter((event) => event.metadata.stage !== 'agent_stream' && !(event.metadata.stage === 'final' && event.metadata.state?.delta === true)).map((event) => event.metadata.stage);

async function metric(board: TestSwitchboard, name: string, cache: string): Promise<number> {
  const text = await (await fetch(`${board.url}/metrics`)).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{cache="${cache}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function waitForNewVersion(board: TestSwitchboard, before: string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 50) {
    const now = (await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string };
    if (now.version !== before) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the registry edit was not applied');
}

describe('answer cache (semantic cache of hot questions)', () => {
  let board: TestSwitchboard;
  let weather: FakeAgent;
  let hotel: FakeAgent;
  let others: FakeAgent[];
  const failing = new Set<string>();

  beforeAll(async () => {
    weather = await startWeather(failing);
    hotel = await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880 }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' }));
    others = await Promise.all([1, 2].map(() => startFakeAgent(jsonReply({ output: {} }))));
    board = await startTestSwitchboard({ registryYaml: registry({ 7101: hotel.url, 7102: others[0]!.url, 7103: others[1]!.url, 7104: weather.url }), now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all([weather, hotel, ...others].map((agent) => agent.close()));
  });

  it('answers a near-duplicate in another session of another user from cache, misses on other inputs and after a registry edit', async () => {
    const hitsBefore = await metric(board, 'switchboard_cache_hits_total', 'answer');
    const missesBefore = await metric(board, 'switchboard_cache_misses_total', 'answer');
    const first = await board.chat('北京明天天气怎么样', { sessionId: 'ac-1', userId: 'ac-u1' });
    expect(weather.calls).toHaveLength(1);
    expect(completeFinal(first).metadata.state?.cached).toBeUndefined();
    expect(doneState(first).cached).toBeUndefined();

    // Another user, another session, other wording, full-width punctuation: same city and date.
    const second = await board.chat('明天北京的天气如何？', { sessionId: 'ac-2', userId: 'ac-u2' });
    expect(weather.calls).toHaveLength(1);
    // The client still sees the agent answer, from cache, with the kept output and message, as on the first ask.
    expect(stages(second)).toEqual(stages(first));
    expect(stageEvents(second, 'agent_start')).toEqual([expect.objectContaining({ agent_id: 'weather_agent' })]);
    const [agentDone] = stageEvents(second, 'agent_done');
    const [firstDone] = stageEvents(first, 'agent_done');
    expect(agentDone).toMatchObject({ agent_id: 'weather_agent', metadata: { state: { status: 'completed', cached: true, output: firstDone!.metadata.state!.output } } });
    expect(agentDone!.content).toBe(firstDone!.content);
    expect(firstDone!.metadata.state?.cached).toBeUndefined();
    const final = completeFinal(second);
    expect(final.metadata.state).toMatchObject({ cached: true, tasks: [{ agent: 'weather_agent', status: 'completed' }] });
    expect(final.content).toBe(completeFinal(first).content);
    expect(doneState(second)).toMatchObject({ outcome: 'completed', cached: true });
    expect(await metric(board, 'switchboard_cache_hits_total', 'answer')).toBe(hitsBefore + 1);
    expect(await metric(board, 'switchboard_cache_misses_total', 'answer')).toBe(missesBefore + 1);

    // The kept answer still counts as a turn of the session: the next turn builds on it.
    const followUp = await board.chat('那后天呢', { sessionId: 'ac-2', userId: 'ac-u2' });
    expect(weather.calls).toHaveLength(2);
    expect(weather.calls[1]!.body).toMatchObject({ inputs: { city: '北京', date: '2026-11-24' } });
    expect(completeFinal(followUp).metadata.state?.cached).toBeUndefined();

    // Other inputs miss.
    await board.chat('上海明天天气怎么样', { sessionId: 'ac-3', userId: 'ac-u1' });
    expect(weather.calls).toHaveLength(3);

    // Any registry edit is a new version: the same question is asked again.
    const { version } = (await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string };
    writeFileSync(board.configPath, readFileSync(board.configPath, 'utf8').replace('城市天气预报查询', '城市天气预报查询（已更新）'));
    await waitForNewVersion(board, version);
    const afterEdit = await board.chat('北京明天天气怎么样', { sessionId: 'ac-4', userId: 'ac-u3' });
    expect(weather.calls).toHaveLength(4);
    expect(completeFinal(afterEdit).metadata.state?.cached).toBeUndefined();
    const again = await board.chat('北京明天天气怎么样', { sessionId: 'ac-5', userId: 'ac-u4' });
    expect(weather.calls).toHaveLength(4);
    expect(completeFinal(again).metadata.state?.cached).toBe(true);
  });

  it('never answers a question with another qualifier from the entry of one without it ("下个月", "这周末会下雨", "next month")', async () => {
    await board.chat('广州天气如何', { sessionId: 'ac-q1', userId: 'ac-q-u1' });
    const calls = weather.calls.length;
    for (const [index, query] of ['广州下个月天气怎么样', '广州这周末会下雨吗', "What's the weather in Guangzhou next month"].entries()) {
      const events = await board.chat(query, { sessionId: `ac-q${index + 2}`, userId: `ac-q-u${index + 2}` });
      expect(doneState(events).cached, query).toBeUndefined();
      expect(stageEvents(events, 'agent_done').every((event) => event.metadata.state?.cached !== true), query).toBe(true);
      expect(weather.calls.length, query).toBe(calls + index + 1);
    }
    // The near-duplicate wording of the same question still shares its entry.
    const again = await board.chat('广州的天气怎么样？', { sessionId: 'ac-q9', userId: 'ac-q-u9' });
    expect(doneState(again).cached).toBe(true);
  });

  it('never keeps a failed turn', async () => {
    failing.add('成都');
    const calls = weather.calls.length;
    const failed = await board.chat('成都明天天气怎么样', { sessionId: 'ac-f1', userId: 'ac-u1' });
    expect(stageEvents(failed, 'agent_failed')).toHaveLength(1);
    failing.delete('成都');
    const retried = await board.chat('成都明天天气怎么样', { sessionId: 'ac-f2', userId: 'ac-u2' });
    expect(weather.calls.length).toBe(calls + 2);
    expect(completeFinal(retried).metadata.state?.cached).toBeUndefined();
    expect(stageEvents(retried, 'agent_done')).toHaveLength(1);
  });

  it('never answers a plan with a side effect from cache', async () => {
    const query = '帮我订北京的酒店，明天入住，再告诉我北京明天的天气';
    for (const session of ['ac-s1', 'ac-s2']) {
      const planned = await board.chat(query, { sessionId: session, userId: 'ac-u5' });
      const final = completeFinal(planned);
      expect(final.metadata.state?.cached).toBeUndefined();
      const confirmation = (final.metadata as { confirmation?: { task_id: string }[] }).confirmation ?? [];
      expect(confirmation).toHaveLength(1);
      const confirmed = await board.chat('', { sessionId: session, userId: 'ac-u5', confirm: [confirmation[0]!.task_id] });
      expect(completeFinal(confirmed).metadata.state?.cached).toBeUndefined();
    }
    expect(hotel.calls).toHaveLength(2);
  });

  it('keeps an answer that used the profile per user', async () => {
    // Two turns teach each user the usual city 广州.
    for (const user of ['ac-p1', 'ac-p2']) {
      await board.chat('广州明天天气怎么样', { sessionId: `${user}-a`, userId: user });
      await board.chat('广州后天天气怎么样', { sessionId: `${user}-a`, userId: user });
    }
    const calls = weather.calls.length;
    expect(calls).toBeGreaterThanOrEqual(2);

    const hitsBefore = await metric(board, 'switchboard_cache_hits_total', 'answer');
    const filled = await board.chat('明天天气怎么样', { sessionId: 'ac-p1-b', userId: 'ac-p1' });
    expect(completeFinal(filled).metadata.state?.profile_filled).toEqual([expect.objectContaining({ key: 'city', value: '广州' })]);
    // Not from the answer cache (the profile-filled entry is per user and new); the agent's reply for 广州 is shared.
    expect(completeFinal(filled).metadata.state?.cached).toBeUndefined();
    expect(stageEvents(filled, 'agent_done')[0]!.metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls);
    expect(await metric(board, 'switchboard_cache_hits_total', 'answer')).toBe(hitsBefore);

    // The same user in yet another session: from the answer cache, and still told which city was assumed.
    const kept = await board.chat('明天的天气怎么样', { sessionId: 'ac-p1-c', userId: 'ac-p1' });
    expect(weather.calls.length).toBe(calls);
    expect(completeFinal(kept).metadata.state).toMatchObject({ cached: true, profile_filled: [expect.objectContaining({ value: '广州' })] });
    expect(completeFinal(kept).content).toContain('广州');
    expect(await metric(board, 'switchboard_cache_hits_total', 'answer')).toBe(hitsBefore + 1);

    // Another user with the same usual city does not get the first user's entry.
    const other = await board.chat('明天天气怎么样', { sessionId: 'ac-p2-b', userId: 'ac-p2' });
    expect(completeFinal(other).metadata.state).toMatchObject({ profile_filled: [expect.objectContaining({ value: '广州' })] });
    expect(completeFinal(other).metadata.state?.cached).toBeUndefined();
    expect(await metric(board, 'switchboard_cache_hits_total', 'answer')).toBe(hitsBefore + 1);
  });
});

describe('answer cache TTL', () => {
  let weather: FakeAgent;
  let others: FakeAgent[];
  const boards: TestSwitchboard[] = [];

  beforeAll(async () => {
    weather = await startWeather(new Set());
    others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} }))));
  });
  afterAll(async () => {
    await Promise.all(boards.map((board) => board.close()));
    await Promise.all([weather, ...others].map((agent) => agent.close()));
  });

  const start = async (ttl?: number, weatherTtl?: number) => {
    const board = await startTestSwitchboard({ registryYaml: registry({ 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url }, ttl, weatherTtl), now: () => NOW });
    boards.push(board);
    return board;
  };

  it('keeps an answer for answer_cache_ttl_s seconds when that is the shorter TTL', async () => {
    const board = await start(1);
    const calls = weather.calls.length;
    await board.chat('杭州明天天气怎么样', { sessionId: 'ttl-1' });
    const hit = await board.chat('杭州明天天气怎么样', { sessionId: 'ttl-2' });
    expect(completeFinal(hit).metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls + 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // The answer is gone; the agent's own reply (cache_ttl_s 300) is still live.
    const expired = await board.chat('杭州明天天气怎么样', { sessionId: 'ttl-3' });
    expect(completeFinal(expired).metadata.state?.cached).toBeUndefined();
    expect(stageEvents(expired, 'agent_done')[0]!.metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls + 1);
  });

  it('keeps an answer no longer than the agent\'s cache_ttl_s', async () => {
    const board = await start(undefined, 1);
    const calls = weather.calls.length;
    await board.chat('深圳明天天气怎么样', { sessionId: 'ttl-a1' });
    const hit = await board.chat('深圳明天天气怎么样', { sessionId: 'ttl-a2' });
    expect(completeFinal(hit).metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls + 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const expired = await board.chat('深圳明天天气怎么样', { sessionId: 'ttl-a3' });
    expect(completeFinal(expired).metadata.state?.cached).toBeUndefined();
    expect(stageEvents(expired, 'agent_done')[0]!.metadata.state?.cached).toBeUndefined();
    expect(weather.calls.length).toBe(calls + 2);
  });

  it('keeps nothing with answer_cache_ttl_s: 0 (the agent\'s own response cache still answers)', async () => {
    const board = await start(0);
    const calls = weather.calls.length;
    const turns = [];
    for (const session of ['off-1', 'off-2']) {
      const events = await board.chat('西安明天天气怎么样', { sessionId: session });
      expect(completeFinal(events).metadata.state?.cached).toBeUndefined();
      turns.push(events);
    }
    expect(stageEvents(turns[1]!, 'agent_done')[0]!.metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls + 1);
    expect(await metric(board, 'switchboard_cache_hits_total', 'answer')).toBe(0);
    expect(await metric(board, 'switchboard_cache_misses_total', 'answer')).toBe(0);
    expect(await metric(board, 'switchboard_cache_hits_total', 'response')).toBe(1);
  });
});
