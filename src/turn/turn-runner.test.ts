import { afterEach, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { card, snapshotOf, weatherCard } from '../../test/support/registry-fixtures.js';
import { buildOfflineGraph } from '../../test/support/offline-graph.js';
import { silentLogger } from '../logger.js';
import { maskStorage, createPiiMasker } from '../privacy/index.js';
import { createStaticRegistry } from '../registry/index.js';
import { openSqliteStorage, type Storage } from '../store/index.js';
import type { NodeEvent, TurnContext } from '../graph/context.js';
import type { SupervisorGraph } from '../graph/build-graph.js';
import type { ResponseState } from '../events/index.js';
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
    const weather = weatherCard(agent.url);
    const snapshot = snapshotOf([weather]);
    storage = openSqliteStorage(':memory:');
    const graph = buildOfflineGraph(storage.checkpointer);
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

describe('createTurnRunner with a scripted graph', () => {
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
  });

  /** A graph stand-in that records one dispatch and emits `chunks` as one agent's progress, then the final answer. */
  function scriptedGraph(inputs: Record<string, unknown>, chunks: readonly string[]): SupervisorGraph {
    return {
      async stream(_input: unknown, config: { context: TurnContext }) {
        await config.context.tasks!.dispatched({ task_id: 'task_1', agent_id: 'ticket_agent', inputs });
        const events: NodeEvent[] = [
          { stage: 'agent_start', content: '开始', agent_id: 'ticket_agent', is_thinking: true, state: { task_id: 'task_1' } },
          ...chunks.map((content): NodeEvent => ({ stage: 'agent_stream', content, agent_id: 'ticket_agent', is_thinking: true, state: { task_id: 'task_1' } })),
          { stage: 'agent_done', content: '完成', agent_id: 'ticket_agent', is_thinking: true, state: { task_id: 'task_1', status: 'completed' } },
          { stage: 'final', content: '好的', agent_id: 'summarize', is_thinking: false },
        ];
        return (async function* () {
          yield* events;
        })();
      },
    } as unknown as SupervisorGraph;
  }

  it('stores task inputs with every personal value masked, numbers included, even on storage without a masking wrapper', async () => {
    const ticket = card({ id: 'ticket_agent', name: '工单', description: '工单查询', endpoint: { url: 'http://127.0.0.1:9/invoke', protocol: 'http-json', timeoutMs: 1000, retries: 0, headers: {} } });
    storage = openSqliteStorage(':memory:');
    const inputs = { phone: 13812345678, note: '卡号 6222021234567890128，邮箱 zhang.san@example.com', id_no: '11010519491231002X', nights: 2 };
    const runner = createTurnRunner({ registry: createStaticRegistry(snapshotOf([ticket])), graph: scriptedGraph(inputs, []), storage, logger: silentLogger });
    const started = await runner.start({ query: '查工单', userId: 'u1', traceId: 't' }, { signal: new AbortController().signal, onEvent: () => {} });
    await started.done;
    const [task] = await storage.tasks.listTasks(started.turnId!);
    expect(task!.inputs).toEqual({ phone: '138****5678', note: '卡号 6222***********0128，邮箱 zh***@example.com', id_no: '110105********002X', nights: 2 });
  });

  it('never splits a secret or a phone number between two streamed events; what was held goes out before agent_done', async () => {
    const secret = 'sk-live-7f3a9b2c4d';
    const ticket = card({
      id: 'ticket_agent',
      name: '工单',
      description: '工单查询',
      endpoint: { url: 'http://127.0.0.1:9/invoke', protocol: 'http-json', timeoutMs: 1000, retries: 0, headers: { 'X-Api-Key': secret } },
    });
    storage = openSqliteStorage(':memory:');
    const chunks = ['电话 1381234', '5678，密钥 sk-li', 've-7f3a9b2c4d', ' ok'];
    const runner = createTurnRunner({ registry: createStaticRegistry(snapshotOf([ticket])), graph: scriptedGraph({}, chunks), storage, logger: silentLogger });
    const events: ResponseState[] = [];
    const started = await runner.start({ query: '查工单', userId: 'u1', traceId: 't' }, { signal: new AbortController().signal, onEvent: (event) => events.push(event) });
    await started.done;
    const stages = events.map((event) => event.metadata.stage);
    const streamed = events.filter((event) => event.metadata.stage === 'agent_stream').map((event) => event.content);
    expect(streamed.join('')).toBe('电话 13812345678，密钥 [redacted] ok');
    expect(streamed.some((content) => content.includes('13812345678'))).toBe(true);
    for (const content of streamed) expect(content).not.toMatch(/sk-|7f3a|1381234$/);
    expect(stages.lastIndexOf('agent_stream')).toBeLessThan(stages.indexOf('agent_done'));
    expect(events.map((event) => event.metadata.seq)).toEqual(events.map((_event, index) => index + 1));
  });

  it('keeps each progress message as it came unless a value spans two: a number or an address split anywhere reaches storage in one piece', async () => {
    const ticket = card({ id: 'ticket_agent', name: '工单', description: '工单查询', endpoint: { url: 'http://127.0.0.1:9/invoke', protocol: 'http-json', timeoutMs: 1000, retries: 0, headers: {} } });
    storage = maskStorage(openSqliteStorage(':memory:'), createPiiMasker());
    const chunks = ['电话 138', '12345678，邮箱 zhang', '.san@example.com 已登记', '查询进度 1', '查询进度 2'];
    const runner = createTurnRunner({ registry: createStaticRegistry(snapshotOf([ticket])), graph: scriptedGraph({}, chunks), storage, logger: silentLogger });
    const events: ResponseState[] = [];
    const started = await runner.start({ query: '查工单', userId: 'u1', traceId: 't' }, { signal: new AbortController().signal, onEvent: (event) => events.push(event) });
    await started.done;
    const streamed = events.filter((event) => event.metadata.stage === 'agent_stream').map((event) => event.content);
    expect(streamed).toEqual(['电话 ', '13812345678，邮箱 ', 'zhang.san@example.com 已登记', '查询进度 1', '查询进度 2']);
    const stages = events.map((event) => event.metadata.stage);
    expect(stages.lastIndexOf('agent_stream')).toBeLessThan(stages.indexOf('agent_done'));
    const stored = (await storage.events.listEvents(started.turnId!)).map((event) => JSON.parse(event.data) as ResponseState);
    const storedText = stored.filter((event) => event.metadata.stage === 'agent_stream').map((event) => event.content).join('');
    expect(storedText).toBe('电话 138****5678，邮箱 zh***@example.com 已登记查询进度 1查询进度 2');
  });

  it('never splits a personal value between two answer deltas, wherever the model cut it', async () => {
    const deltas = ['您的电话 1', '38 1234', ' 5678，邮箱 zhang.san', '@exam', 'ple.com。'];
    const graph = {
      async stream() {
        return (async function* () {
          for (const content of deltas) yield { stage: 'final', content, agent_id: 'summarize', is_thinking: false, state: { delta: true } } satisfies NodeEvent;
          yield { stage: 'final', content: deltas.join(''), agent_id: 'summarize', is_thinking: false } satisfies NodeEvent;
        })();
      },
    } as unknown as SupervisorGraph;
    storage = maskStorage(openSqliteStorage(':memory:'), createPiiMasker());
    const runner = createTurnRunner({ registry: createStaticRegistry(snapshotOf([])), graph, storage, logger: silentLogger });
    const events: ResponseState[] = [];
    const started = await runner.start({ query: '我的资料', userId: 'u1', traceId: 't' }, { signal: new AbortController().signal, onEvent: (event) => events.push(event) });
    await started.done;
    const shown = events.filter((event) => event.metadata.state?.delta === true).map((event) => event.content);
    expect(shown.join('')).toBe(deltas.join(''));
    expect(shown.some((content) => content.includes('138 1234 5678'))).toBe(true);
    expect(shown.some((content) => content.includes('zhang.san@example.com'))).toBe(true);
    const stored = (await storage.events.listEvents(started.turnId!)).map((event) => JSON.parse(event.data) as ResponseState);
    const storedDeltas = stored.filter((event) => event.metadata.state?.delta === true).map((event) => event.content).join('');
    expect(storedDeltas).toBe('您的电话 138****5678，邮箱 zh***@example.com。');
  });
});
