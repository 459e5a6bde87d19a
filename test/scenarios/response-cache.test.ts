/**
 * The response cache per agent over real HTTP: the sample registry gives the
 * weather agent `cache_ttl_s`, so the same city and date asked again (another
 * session, another user) is answered without calling the agent, until the
 * registry is edited.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';

describe('response cache', () => {
  let agents: FakeAgent[];
  let weather: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    weather = await startFakeAgent((body) => {
      const city = (body as { inputs: { city: string } }).inputs.city;
      // Guangzhou's reply names a hotline (personal data): such a reply is never kept.
      const message = city === '广州' ? `${city}明天晴，预警咨询 13812345678。` : `${city}明天晴。`;
      return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message } });
    });
    const others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} }))));
    agents = [weather, ...others];
    // The answer cache is off, so a repeated question reaches the execute step and its response cache.
    const yaml = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url }, { answerCacheTtlS: 0 });
    board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  const agentDone = async (query: string, sessionId: string, userId = 'u1') => {
    const events = await board.chat(query, { sessionId, userId });
    const done = stageEvents(events, 'agent_done');
    expect(done).toHaveLength(1);
    return done[0]!;
  };

  it('answers the same question in a second session from cache, misses on other inputs, and an edit invalidates', async () => {
    const first = await agentDone('北京明天天气怎么样', 'rc-1');
    expect(first.metadata.state?.cached).toBeUndefined();
    expect(weather.calls).toHaveLength(1);

    const second = await agentDone('明天北京的天气如何？', 'rc-2', 'u2');
    expect(second.metadata.state).toMatchObject({ status: 'completed', cached: true, output: { city: '北京' } });
    expect(second.content).toBe('北京明天晴。');
    expect(weather.calls).toHaveLength(1);

    await agentDone('上海明天天气怎么样', 'rc-3');
    expect(weather.calls).toHaveLength(2);

    const version = (await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string };
    writeFileSync(board.configPath, readFileSync(board.configPath, 'utf8').replace('城市天气预报查询', '城市天气预报查询（已更新）'));
    for (let waited = 0; waited < 5000; waited += 50) {
      const now = (await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string };
      if (now.version !== version.version) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const afterEdit = await agentDone('北京明天天气怎么样', 'rc-4');
    expect(afterEdit.metadata.state?.cached).toBeUndefined();
    expect(weather.calls).toHaveLength(3);
  });

  it('does not keep a reply that carries personal data: the same question reaches the agent again', async () => {
    const before = weather.calls.length;
    const first = await agentDone('广州明天天气怎么样', 'rc-pii-1');
    const second = await agentDone('广州明天天气怎么样', 'rc-pii-2');
    expect(first.metadata.state?.cached).toBeUndefined();
    expect(second.metadata.state?.cached).toBeUndefined();
    expect(weather.calls.length - before).toBe(2);
  });
});
