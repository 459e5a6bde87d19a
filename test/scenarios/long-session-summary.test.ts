/**
 * Bounded context over a 30-turn session with the strict scripted model: the
 * intent prompt keeps the last memory_max_history turns verbatim plus one
 * layered summary; the model's memory_summary (asked for only when a turn
 * leaves the window) is folded in without any extra call, and the prompt
 * stops growing once the window is full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const CITIES = ['北京', '上海', '广州', '深圳', '杭州', '成都'];

describe('layered summary over a long session (LLM mode)', () => {
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  let board: TestSwitchboard;
  let agents: FakeAgent[];

  beforeAll(async () => {
    const weather = await startFakeAgent((body) => {
      const city = (body as { inputs: { city: string } }).inputs.city;
      return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date: '2026-11-23', condition: '晴', high: 8, low: -2 }] }, message: `${city}明天晴。` } });
    });
    agents = [weather, ...(await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} })))))];
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, timeoutMs: 3000, maxRetries: 0, breaker: false });
    const yaml = sampleRegistry('agents_config.yaml', { 7101: agents[1]!.url, 7102: agents[2]!.url, 7103: agents[3]!.url, 7104: weather.url }, { answerCacheTtlS: 0 });
    board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    gateway.close();
    await fake.close();
    await Promise.all(agents.map((agent) => agent.close()));
  });

  it('folds 25 of 30 turns into the summary, uses the model summary, and keeps the intent prompt flat', async () => {
    const intentPrompts: string[] = [];
    for (let index = 1; index <= 30; index += 1) {
      const city = CITIES[index % CITIES.length]!;
      const query = `第${index}次：${city}明天天气怎么样`;
      fake.push(
        (request: RecordedRequest) => {
          const prompt = request.messages[1]!.content;
          intentPrompts.push(prompt);
          const asked = prompt.includes('also return memory_summary');
          return {
            content: {
              kind: 'business',
              intent: ['weather_agent'],
              confidence: 'medium',
              reason: 'weather',
              rewritten_query: query,
              user_friendly_message: '好的',
              task_plan: { sub_tasks: [{ task_id: 't1', description: query, assigned_agent: 'weather_agent', inputs: { city }, dependencies: [] }] },
              ...(asked ? { memory_summary: `S${index}: 用户连续查询各城市天气。` } : {}),
            },
            usage: false,
          };
        },
        { content: `${city}明天晴。`, usage: false },
      );
      await board.chat(query, { sessionId: 'long-1' });
      fake.assertComplete();
    }
    expect(fake.requests).toHaveLength(60);
    const last = intentPrompts[29]!;
    expect(last).toContain('Summary of earlier conversation:\n<<<DATA:summary>>>\n24 earlier turn(s).');
    expect(last).toContain('S29: 用户连续查询各城市天气。');
    expect(last).toMatch(/Services asked for: 天气查询 ×24/);
    expect(last).toContain('[5] user: 第29次');
    expect(last).not.toContain('user: 第24次');
    expect(last).toContain('Last earlier requests: 第22次：杭州明天天气怎么样 | 第23次：成都明天天气怎么样 | 第24次：北京明天天气怎么样');
    // No summary is asked for before the window is full.
    expect(intentPrompts.slice(0, 5).some((prompt) => prompt.includes('memory_summary'))).toBe(false);
    expect(intentPrompts[5]).toContain('also return memory_summary');
    // Flat: turn 30's prompt is within 1.2× of turn 10's.
    expect(last.length).toBeLessThanOrEqual(intentPrompts[9]!.length * 1.2);
  });
});
