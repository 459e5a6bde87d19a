import { afterEach, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { createAgentClient } from '../agents/index.js';
import { card, keySpec, snapshotOf } from '../../test/support/registry-fixtures.js';
import { createOfflineRecognizer } from '../intent/index.js';
import { silentLogger } from '../logger.js';
import { createStaticRegistry } from '../registry/index.js';
import { openSqliteStorage, type Storage } from '../store/index.js';
import { createOfflineAnswers } from './answers/offline-answers.js';
import { buildSupervisorGraph } from './build-graph.js';
import { createOfflinePlanner } from './planning/offline-planner.js';
import type { ResponseState } from './response-state.js';
import { createTurnRunner } from './turn-runner.js';

describe('createTurnRunner content guard', () => {
  let agent: FakeAgent | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await agent?.close();
    await storage?.close();
  });

  it("shows the agent's name where its reply named an agent id", async () => {
    agent = await startFakeAgent(jsonReply({ message: '结果来自weather_agent：北京明天晴。', output: { city: '北京' } }));
    const weather = card({
      id: 'weather_agent',
      name: '天气查询',
      description: '城市天气预报查询',
      examples: ['北京明天的天气怎么样'],
      keywords: ['天气', 'weather'],
      endpoint: { url: agent.url, protocol: 'http-json', timeoutMs: 5000, retries: 0, headers: {} },
      requiredKeys: [keySpec('city', '查询城市', { type: 'enum', values: ['北京', '上海'] }, 'city_selector')],
    });
    const snapshot = snapshotOf([weather]);
    storage = openSqliteStorage(':memory:');
    const graph = buildSupervisorGraph({
      recognizer: createOfflineRecognizer(),
      planner: createOfflinePlanner(),
      agentClient: createAgentClient(),
      answers: createOfflineAnswers(),
      logger: silentLogger,
      checkpointer: storage.checkpointer,
    });
    const runner = createTurnRunner({ registry: createStaticRegistry(snapshot), graph, storage, logger: silentLogger });
    const events: ResponseState[] = [];
    const started = await runner.start(
      { query: '北京明天的天气怎么样', userId: 'u1', traceId: 'trace-1' },
      { signal: new AbortController().signal, onEvent: (event) => events.push(event) },
    );
    const result = await started.done;

    expect(agent.calls).toHaveLength(1);
    const done = events.find((event) => event.metadata.stage === 'agent_done');
    expect(done?.content).toBe('结果来自天气查询：北京明天晴。');
    expect(done?.agent_id).toBe('weather_agent');
    expect(result.finalAnswer).toContain('结果来自天气查询：北京明天晴。');
    for (const event of events) expect(event.content).not.toContain('weather_agent');
  });
});
