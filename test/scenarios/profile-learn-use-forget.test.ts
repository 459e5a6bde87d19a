/**
 * The long-term profile over real HTTP: a city given in one turn is learned,
 * a later session of the same user gets it filled when the user leaves it out
 * (and the answer says so), a newer different city replaces it, other users
 * cannot read it, and forgetting the user removes the profile and every
 * session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;

describe('long-term profile', () => {
  let board: TestSwitchboard;
  let agents: FakeAgent[];
  let weather: FakeAgent;

  beforeAll(async () => {
    weather = await startFakeAgent((body) => {
      const { city, date } = (body as { inputs: { city: string; date?: string } }).inputs;
      return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date: date ?? '2026-11-23', condition: '晴', high: 8, low: -2 }] }, message: `${city}天气晴。` } });
    });
    agents = [weather, ...(await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} })))))];
    const yaml = sampleRegistry('agents_config.yaml', { 7101: agents[1]!.url, 7102: agents[2]!.url, 7103: agents[3]!.url, 7104: weather.url });
    board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  const profile = async (path: string, method = 'GET') => {
    const response = await fetch(`${board.url}${path}`, { method });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('learns the usual city, offers it in another session, and forgets everything on request', async () => {
    // Another user has no profile: asked for the city.
    let asked = await board.chat('明天天气怎么样', { sessionId: 'p-x', userId: 'pu-other' });
    expect(completeFinal(asked).metadata.semantic_info?.[0]).toMatchObject({ type: 'miss', keys: ['city'] });

    // One question is enough when nothing contradicts it.
    await board.chat('上海明天天气怎么样', { sessionId: 'p-a', userId: 'pu1' });
    const read = await profile('/v1/users/pu1/profile?user_id=pu1');
    expect(read.status).toBe(200);
    expect(read.body.facts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'city', value: '上海', hits: 1, source: expect.objectContaining({ session_id: 'p-a' }) }),
        expect.objectContaining({ key: 'language', value: 'zh' }),
      ]),
    );

    // A new session: the city is filled from the profile and said first.
    const used = await board.chat('后天天气怎么样', { sessionId: 'p-b', userId: 'pu1' });
    const final = completeFinal(used);
    expect(final.metadata.semantic_info ?? []).toEqual([]);
    expect(final.content.startsWith('已按您常用的查询城市 上海 为您处理，如需更换请告诉我。')).toBe(true);
    expect(final.metadata.state?.profile_filled).toEqual([expect.objectContaining({ key: 'city', value: '上海' })]);
    expect((weather.calls.at(-1)!.body as { inputs: { city: string } }).inputs.city).toBe('上海');
    // The city the user names wins over the profile, and being newer, replaces it.
    const named = await board.chat('北京后天天气怎么样', { sessionId: 'p-c', userId: 'pu1' });
    expect(completeFinal(named).metadata.state?.profile_filled).toBeUndefined();
    expect((await profile('/v1/users/pu1/profile?user_id=pu1')).body.facts).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'city', value: '北京', hits: 1 })]));
    const replaced = await board.chat('明天天气怎么样', { sessionId: 'p-c', userId: 'pu1' });
    expect(completeFinal(replaced).metadata.state?.profile_filled).toEqual([expect.objectContaining({ key: 'city', value: '北京' })]);

    // Other users: 403; bad input: 400.
    expect((await profile('/v1/users/pu1/profile?user_id=intruder')).status).toBe(403);
    expect((await profile('/v1/users/pu1/profile?user_id=intruder', 'DELETE')).status).toBe(403);
    expect((await profile('/v1/users/pu1/profile')).status).toBe(400);
    expect((await profile('/v1/users/pu1/profile?user_id=pu1&all=maybe', 'DELETE')).status).toBe(400);

    const forgotten = await profile('/v1/users/pu1/profile?user_id=pu1&all=true', 'DELETE');
    expect(forgotten).toEqual({ status: 200, body: { user_id: 'pu1', deleted: { profile: true, sessions: 3 } } });
    expect((await profile('/v1/users/pu1/profile?user_id=pu1')).body.facts).toEqual([]);
    expect((await fetch(`${board.url}/v1/sessions/p-a/messages?user_id=pu1`)).status).toBe(404);
    asked = await board.chat('明天天气怎么样', { sessionId: 'p-d', userId: 'pu1' });
    expect(completeFinal(asked).metadata.semantic_info?.[0]).toMatchObject({ type: 'miss', keys: ['city'] });
  });
});

describe('only keys marked remember become profile facts', () => {
  let board: TestSwitchboard;
  let agents: FakeAgent[];

  beforeAll(async () => {
    agents = await Promise.all([0, 1, 2, 3, 4].map((index) =>
      startFakeAgent((body) => {
        const inputs = (body as { inputs: Record<string, unknown> }).inputs;
        return jsonReply({ output: index === 2 ? { refund_id: 'R1', status: 'accepted' } : { order_id: inputs.order_id ?? 'x', status: 'paid' } });
      }),
    ));
    const yaml = sampleRegistry('examples/ecommerce/agents_config.yaml', Object.fromEntries(agents.map((agent, index) => [7201 + index, agent.url])));
    board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  it('a refund reason given once is not offered as "your usual refund reason" in a new session', async () => {
    const refund = agents[2]!;
    await board.chat('订单号 2024051812345678 质量问题，我要退款', { sessionId: 'rr-a', userId: 'ru1' });
    expect((refund.calls.at(-1)!.body as { inputs: Record<string, unknown> }).inputs).toMatchObject({ refund_reason: '质量问题' });
    const facts = ((await (await fetch(`${board.url}/v1/users/ru1/profile?user_id=ru1`)).json()) as { facts: { key: string }[] }).facts;
    expect(facts.map((fact) => fact.key)).not.toContain('refund_reason');

    const callsBefore = refund.calls.length;
    const later = completeFinal(await board.chat('订单号 2024051899999999 我要退款', { sessionId: 'rr-b', userId: 'ru1' }));
    expect(later.content).not.toContain('常用');
    expect(later.metadata.state?.profile_filled).toBeUndefined();
    expect(later.metadata.semantic_info).toEqual([expect.objectContaining({ sub_agent_id: 'refund_agent', keys: ['refund_reason'] })]);
    expect(refund.calls.length).toBe(callsBefore);
  });
});
