import { afterEach, describe, expect, it } from 'vitest';
import { MemorySaver } from '@langchain/langgraph';
import { jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { card, snapshotOf, travelCards, weatherCard } from '../../test/support/registry-fixtures.js';
import { buildOfflineGraph } from '../../test/support/offline-graph.js';
import { silentLogger } from '../logger.js';
import { createStaticRegistry } from '../registry/index.js';
import { openSqliteStorage, type Storage } from '../store/index.js';
import { createTurnRunner } from '../turn/turn-runner.js';
import { checkpointThread, DEFAULT_TENANT, ownerKey } from '../store/owner-key.js';
import type { ResponseState } from '../events/index.js';
import type { FlowchartEngine } from './build-graph.js';
import { compileFlowchart, FLOW_END, newCheckpointId, type Flowchart } from './flowchart-runner.js';

interface Counter {
  count: number;
  trail: string[];
}

/** a → b → (c while count < 3, else end); b waits `waitMs` and fails when `failAt` is its count. */
function counter(options: { waitMs?: number; failAt?: number } = {}): Flowchart<Counter> {
  return {
    first: 'a',
    initial: () => ({ count: 0, trail: [] }),
    steps: {
      a: {
        run: async (state, config) => {
          config.writer?.({ step: 'a', count: state.count });
          return { count: state.count + 1, trail: [...state.trail, 'a'] };
        },
        next: () => 'b',
      },
      b: {
        run: async (state) => {
          if (options.waitMs) await new Promise((resolve) => setTimeout(resolve, options.waitMs));
          if (options.failAt === state.count) throw new Error('b failed');
          return { trail: [...state.trail, 'b'] };
        },
        next: (state) => (state.count < 3 ? 'a' : FLOW_END),
      },
    },
  };
}

async function collect(stream: Promise<AsyncIterable<unknown>>): Promise<unknown[]> {
  const events: unknown[] = [];
  for await (const event of await stream) events.push(event);
  return events;
}

describe('compileFlowchart', () => {
  it('runs the steps as the routers say, streams what they write, and saves the state once at the end', async () => {
    const saver = new MemorySaver();
    const runner = compileFlowchart(counter(), saver);
    const events = await collect(runner.stream({}, { configurable: { thread_id: 't' } }));
    expect(events).toEqual([
      { step: 'a', count: 0 },
      { step: 'a', count: 1 },
      { step: 'a', count: 2 },
    ]);
    const saved = await saver.getTuple({ configurable: { thread_id: 't' } });
    expect(saved?.checkpoint.channel_values).toEqual({ count: 3, trail: ['a', 'b', 'a', 'b', 'a', 'b'] });
    // The next turn starts from what was saved, with its input over it.
    const next = await collect(runner.stream({ count: 2 }, { configurable: { thread_id: 't' } }));
    expect(next).toEqual([{ step: 'a', count: 2 }]);
    const after = await saver.getTuple({ configurable: { thread_id: 't' } });
    expect(after?.checkpoint.channel_values.trail).toHaveLength(8);
    expect(after?.parentConfig?.configurable?.checkpoint_id).toBe(saved?.checkpoint.id);
  });

  it('gives checkpoints version 6 ids that sort in the order they were made, many in one millisecond too', () => {
    const ids = Array.from({ length: 25_000 }, () => newCheckpointId());
    expect(ids.filter((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-8000-[0-9a-f]{12}$/.test(id))).toEqual([]);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The time in front is now's (60-bit count of 100 ns since 1582-10-15).
    const hex = ids[0]!.replaceAll('-', '');
    const ticks = BigInt(`0x${hex.slice(0, 12)}${hex.slice(13, 16)}`);
    const msecs = Number(ticks / 10_000n) - 12_219_292_800_000;
    expect(Math.abs(msecs - Date.now())).toBeLessThan(60_000);
  });

  it('saves what the finished steps did when a step fails, and nothing when the turn is aborted', async () => {
    const saver = new MemorySaver();
    await expect(collect(compileFlowchart(counter({ failAt: 2 }), saver).stream({}, { configurable: { thread_id: 'failed' } }))).rejects.toThrow('b failed');
    expect((await saver.getTuple({ configurable: { thread_id: 'failed' } }))?.checkpoint.channel_values).toEqual({ count: 2, trail: ['a', 'b', 'a'] });

    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('stopped')), 30);
    await expect(
      collect(compileFlowchart(counter({ waitMs: 2000 }), saver).stream({}, { configurable: { thread_id: 'aborted' }, signal: controller.signal })),
    ).rejects.toThrow('stopped');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await saver.getTuple({ configurable: { thread_id: 'aborted' } })).toBeUndefined();
  });
});

describe('the supervisor flowchart on both engines', () => {
  let agents: FakeAgent[] = [];
  let storages: Storage[] = [];
  afterEach(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await Promise.all(storages.map((storage) => storage.close()));
    agents = [];
    storages = [];
  });

  const DIALOGUE = ['北京明天的天气怎么样', '那上海呢', '帮我订酒店', '北京，明天入住', '确认', '你好'];

  async function talk(engines: FlowchartEngine[]): Promise<{ events: ResponseState[][]; memory: unknown }> {
    const weather = await startFakeAgent(jsonReply({ message: '晴。', output: { forecast: '晴' } }));
    const hotel = await startFakeAgent(jsonReply({ message: '已预订。', output: { booking_id: 'H1' } }));
    agents.push(weather, hotel);
    const hotelCard = travelCards().find((each) => each.id === 'hotel_agent')!;
    const snapshot = snapshotOf([weatherCard(weather.url), card({ ...hotelCard, endpoint: { ...weatherCard(hotel.url).endpoint } })]);
    const storage = openSqliteStorage(':memory:');
    storages.push(storage);
    const runners = new Map(
      [...new Set(engines)].map((engine) => [engine, createTurnRunner({ registry: createStaticRegistry(snapshot), graph: buildOfflineGraph(storage.checkpointer, {}, engine), storage, logger: silentLogger, now: () => new Date(2026, 10, 27, 10) })]),
    );
    const events: ResponseState[][] = [];
    let sessionId: string | undefined;
    for (const [index, query] of DIALOGUE.entries()) {
      const turn: ResponseState[] = [];
      const started = await runners.get(engines[index % engines.length]!)!.start({ query, userId: 'u1', sessionId, traceId: `t${index}` }, { signal: new AbortController().signal, onEvent: (event) => turn.push(event) });
      sessionId = started.sessionId;
      await started.done;
      events.push(turn);
    }
    const saved = await storage.checkpointer.getTuple({ configurable: { thread_id: checkpointThread(ownerKey(DEFAULT_TENANT, 'u1'), sessionId!) } });
    return { events, memory: saved?.checkpoint.channel_values.memory };
  }

  /** What a user sees of a turn: each event's stage, speaker and text (ids and timings aside). */
  const seen = (turns: ResponseState[][]) => turns.map((turn) => turn.map((event) => `${event.metadata.stage} ${event.agent_id} ${event.type === 'done' ? '' : event.content}`));

  it('gives the same events and keeps the same memory as LangGraph, and a session moves between the engines', async () => {
    const direct = await talk(['direct']);
    const langgraph = await talk(['langgraph']);
    const mixed = await talk(['langgraph', 'direct']);
    expect(seen(direct.events)).toEqual(seen(langgraph.events));
    expect(seen(mixed.events)).toEqual(seen(langgraph.events));
    expect((direct.memory as { history: unknown[] }).history.length).toBeGreaterThan(3);
    expect(direct.memory).toEqual(langgraph.memory);
    expect(mixed.memory).toEqual(langgraph.memory);
    // The dialogue went somewhere: the confirmation ran the booking and the weather follow-up kept its agent.
    expect(seen(direct.events)[4]!.some((line) => line.startsWith('agent_done hotel_agent'))).toBe(true);
    expect(seen(direct.events)[1]!.some((line) => line.startsWith('agent_done weather_agent'))).toBe(true);
  });
});
