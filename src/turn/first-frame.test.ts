import { afterEach, describe, expect, it } from 'vitest';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { snapshotOf, weatherCard } from '../../test/support/registry-fixtures.js';
import { buildOfflineGraph } from '../../test/support/offline-graph.js';
import { silentLogger } from '../logger.js';
import { createStaticRegistry } from '../registry/index.js';
import { openSqliteStorage, type Storage } from '../store/index.js';
import type { ResponseState } from '../events/index.js';
import { createTurnRunner } from './turn-runner.js';

/**
 * The real SQLite checkpointer, with its reads held until `open()`: what a
 * client has received while the session's state is still being read is what
 * left before any storage read.
 */
function heldCheckpointer(inner: BaseCheckpointSaver) {
  let open: () => void = () => {};
  let opened = false;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let reads = 0;
  const saver = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'getTuple') {
        return async (...args: Parameters<BaseCheckpointSaver['getTuple']>) => {
          reads += 1;
          await gate;
          return target.getTuple(...args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    saver,
    reads: () => reads,
    open: () => {
      opened = true;
      open();
    },
    opened: () => opened,
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let tries = 0; tries < 400 && !check(); tries++) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('the first frame of a turn', () => {
  let agent: FakeAgent | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await agent?.close();
    await storage?.close();
  });

  async function start(query: string, confirm?: string[]) {
    agent = await startFakeAgent(jsonReply({ message: '北京明天晴。', output: { city: '北京' } }));
    storage = openSqliteStorage(':memory:');
    const held = heldCheckpointer(storage.checkpointer);
    const graph = buildOfflineGraph(held.saver);
    const runner = createTurnRunner({ registry: createStaticRegistry(snapshotOf([weatherCard(agent.url)])), graph, storage, logger: silentLogger });
    const events: ResponseState[] = [];
    const started = await runner.start({ query, userId: 'u1', traceId: 'trace-1', confirm }, { signal: new AbortController().signal, onEvent: (event) => events.push(event) });
    return { held, events, started };
  }

  it('leaves before the session state is read when the words fix the language, and is not sent twice', async () => {
    const { held, events, started } = await start('北京明天的天气怎么样');
    await until(() => held.reads() > 0);
    expect(held.reads()).toBeGreaterThan(0);
    expect(events.map((event) => event.metadata.stage)).toEqual(['intent_start']);
    expect(events[0]!.content).toBe('正在分析您的需求...');
    held.open();
    await started.done;
    const stages = events.map((event) => event.metadata.stage);
    expect(stages.filter((stage) => stage === 'intent_start')).toHaveLength(1);
    expect(stages.slice(0, 2)).toEqual(['intent_start', 'intent_done']);
    expect(stages.at(-1)).toBe('done');
    expect(agent!.calls).toHaveLength(1);
  });

  it('is closed by intent_done when the control step answers the turn itself', async () => {
    const { held, events, started } = await start('please go ahead with it', ['task_unknown']);
    held.open();
    await started.done;
    expect(events.map((event) => event.metadata.stage)).toEqual(['intent_start', 'intent_done', 'final', 'done']);
    expect(events[1]!.content).toBe('Got your reply.');
  });

  it('is not sent early for a bare cancel word, which is answered without recognition', async () => {
    const { held, events, started } = await start('cancel');
    held.open();
    await started.done;
    expect(events.map((event) => event.metadata.stage)).toEqual(['final', 'done']);
  });

  it('waits for the session state when the message has no words (an id is answered in the session language)', async () => {
    const { held, events, started } = await start('A1001');
    await until(() => held.reads() > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toEqual([]);
    held.open();
    await started.done;
    expect(events.filter((event) => event.metadata.stage === 'intent_start')).toHaveLength(1);
  });
});
