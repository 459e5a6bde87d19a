import { afterEach, describe, expect, it } from 'vitest';
import { hangReply, jsonReply, startFakeAgent, type FakeAgent, type FakeBehaviour } from '../../test/support/fake-agent.js';
import { ERROR_CATALOGUE, UserError } from '../errors.js';
import { snapshotOf, weatherCard } from '../../test/support/registry-fixtures.js';
import { buildOfflineGraph } from '../../test/support/offline-graph.js';
import { silentLogger } from '../logger.js';
import { createStaticRegistry } from '../registry/index.js';
import { openSqliteStorage, type Storage } from '../store/index.js';
import type { ResponseState } from '../events/index.js';
import { sessionLeaseKey } from './session-lease.js';
import { createTurnRunner } from './turn-runner.js';
import type { TurnRunner } from './turn-types.js';

let agent: FakeAgent | undefined;
let storage: Storage | undefined;
afterEach(async () => {
  await agent?.close();
  await storage?.close();
  agent = undefined;
  storage = undefined;
});

async function setUp(behaviour: FakeBehaviour, options: { leaseTtlMs?: number } = {}) {
  agent = await startFakeAgent(behaviour);
  const weather = weatherCard(agent.url);
  storage = openSqliteStorage(':memory:');
  const store = storage;
  const registry = createStaticRegistry(snapshotOf([weather]));
  const graph = buildOfflineGraph(store.checkpointer);
  const runner = (replicaId: string, extra: { maxQueuedTurns?: number } = {}): TurnRunner =>
    createTurnRunner({ registry, graph, storage: store, logger: silentLogger, replicaId, leaseTtlMs: options.leaseTtlMs, ...extra });
  return { storage: store, runner };
}

async function runTurn(runner: TurnRunner, sessionId: string, query = '北京明天的天气怎么样') {
  const events: ResponseState[] = [];
  const started = await runner.start({ query, userId: 'u1', sessionId, traceId: 'trace-1' }, { signal: new AbortController().signal, onEvent: (event) => events.push(event) });
  return { events, done: started.done };
}

describe('turn lifecycle', () => {
  it('writes the user row and the task record before the sub-agent is called', async () => {
    let seenAtCall: { rows: string[]; tasks: number } | undefined;
    const { storage, runner } = await setUp(async () => {
      const turn = await storage!.transcript.latestTurn('u1', 's1');
      seenAtCall = {
        rows: (await storage!.transcript.listMessages('u1', 's1')).map((row) => row.role),
        tasks: (await storage!.tasks.listTasks(turn!.turn_id)).filter((task) => task.status === 'dispatched').length,
      };
      return jsonReply({ message: '北京明天晴。', output: { city: '北京' } });
    });
    const { events, done } = await runTurn(runner('A'), 's1');
    await done;
    expect(seenAtCall).toEqual({ rows: ['user'], tasks: 1 });
    const turnId = events[0]!.metadata.turn_id!;
    expect(events.every((event) => event.metadata.turn_id === turnId)).toBe(true);
    const [task] = await storage.tasks.listTasks(turnId);
    expect(task).toMatchObject({ agent_id: 'weather_agent', status: 'completed', inputs: { city: '北京' }, dispatches: 1 });
    expect((await storage.transcript.listMessages('u1', 's1')).map((row) => [row.role, row.metadata?.outcome])).toEqual([
      ['user', undefined],
      ['assistant', 'completed'],
    ]);
  });

  it('stores every event exactly as it was sent', async () => {
    const { storage, runner } = await setUp(jsonReply({ message: '北京明天晴。', output: {} }));
    const { events, done } = await runTurn(runner('A'), 's1');
    await done;
    const stored = await storage.events.listEvents(events[0]!.metadata.turn_id!);
    expect(stored.map((event) => event.data)).toEqual(events.map((event) => JSON.stringify(event)));
    expect(events.at(-1)!.type).toBe('done');
  });

  it('runs one turn per session across runners sharing storage (409 for the other)', async () => {
    const { runner } = await setUp(jsonReply({ message: 'ok', output: { city: '北京' }, delayMs: 300 }));
    const first = runner('A');
    const second = runner('B');
    const running = await runTurn(first, 's1');
    const refused = await runTurn(second, 's1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).code).toBe('TURN_IN_PROGRESS');
    await running.done;
    const next = await runTurn(second, 's1');
    expect((await next.done).events.at(-1)!.metadata.state?.outcome).toBe('completed');
  });

  it('records a turn whose holder died as interrupted, once its lease runs out', async () => {
    const { storage, runner } = await setUp(jsonReply({ message: 'ok', output: { city: '北京' } }), { leaseTtlMs: 200 });
    // A replica that died mid-turn: its lease and its running turn are left behind.
    await storage.leases.acquire(sessionLeaseKey('u1', 's1'), 'dead:turn_x', 200);
    await storage.transcript.beginTurn({ turnId: 'turn_x', userId: 'u1', sessionId: 's1', query: 'first', traceId: 't0', createdAt: new Date().toISOString() });
    const refused = await runTurn(runner('A'), 's1').catch((error: unknown) => error);
    expect((refused as UserError).code).toBe('TURN_IN_PROGRESS');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { done } = await runTurn(runner('A'), 's1');
    await done;
    expect((await storage.transcript.listMessages('u1', 's1')).map((row) => [row.role, row.content, row.metadata?.outcome])).toEqual([
      ['user', 'first', undefined],
      ['assistant', '', 'interrupted'],
      ['user', '北京明天的天气怎么样', undefined],
      ['assistant', expect.any(String), 'completed'],
    ]);
  });

  it('drains: lets a turn finish within the grace period, refuses new ones', async () => {
    const { runner } = await setUp(jsonReply({ message: 'ok', output: { city: '北京' }, delayMs: 150 }));
    const turns = runner('A');
    const running = await runTurn(turns, 's1');
    await turns.drain(5000);
    expect((await running.done).events.at(-1)!.metadata.state?.outcome).toBe('completed');
    expect(turns.draining).toBe(true);
    const refused = await runTurn(turns, 's2').catch((error: unknown) => error);
    expect((refused as UserError).code).toBe('NOT_READY');
    expect(ERROR_CATALOGUE[(refused as UserError).code].httpStatus).toBe(503);
  });

  it('drains: cancels a turn still running after the grace period, with a done that says why', async () => {
    const { storage, runner } = await setUp(hangReply());
    const turns = runner('A');
    const running = await runTurn(turns, 's1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await turns.drain(200);
    expect(Date.now() - started).toBeLessThan(3000);
    const { events } = await running.done;
    const final = events.find((event) => event.metadata.stage === 'final');
    expect(final?.content).toContain('重启');
    expect(events.at(-1)!.metadata.state).toMatchObject({ outcome: 'cancelled', reason: 'server_shutdown' });
    const rows = await storage.transcript.listMessages('u1', 's1');
    expect(rows.at(-1)!.metadata).toMatchObject({ outcome: 'cancelled', reason: 'server_shutdown' });
    const turnId = events[0]!.metadata.turn_id!;
    expect((await storage.tasks.listTasks(turnId))[0]?.status).toBe('cancelled');
    expect(await storage.leases.holder(sessionLeaseKey('u1', 's1'))).toBeUndefined();
  });

  it('refuses an enqueued turn with 429 when the session queue is full', async () => {
    const { runner } = await setUp(hangReply());
    const turns = runner('A', { maxQueuedTurns: 1 });
    const running = await runTurn(turns, 's1');
    const controller = new AbortController();
    const waiting = turns
      .start({ query: '你好', userId: 'u1', sessionId: 's1', traceId: 't', multitaskStrategy: 'enqueue' }, { signal: controller.signal, onEvent: () => {} })
      .catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await turns
      .start({ query: '你好', userId: 'u1', sessionId: 's1', traceId: 't', multitaskStrategy: 'enqueue' }, { signal: new AbortController().signal, onEvent: () => {} })
      .catch((error: unknown) => error);
    expect(refused, String(refused)).toBeInstanceOf(UserError);
    expect((refused as UserError).code).toBe('RATE_LIMITED');
    controller.abort();
    expect(((await waiting) as UserError).code).toBe('TURN_IN_PROGRESS');
    await turns.drain(0);
    await running.done;
  });

  it('stops a turn still running well past its time budget (a call that ignores the deadline), with a done that says why', async () => {
    const weather = weatherCard('http://127.0.0.1:9/invoke');
    const base = snapshotOf([weather]);
    const snapshot = { ...base, supervisor: { ...base.supervisor, budgets: { ...base.supervisor.budgets, maxTurnMs: 200 } } };
    storage = openSqliteStorage(':memory:');
    let calls = 0;
    const graph = buildOfflineGraph(storage.checkpointer, {
      // Never settles and never looks at its signal: only the turn's own stop can end this turn.
      agentClient: { call: () => (calls++, new Promise(() => {})) },
    });
    const reached: string[] = [];
    const turns = createTurnRunner({
      registry: createStaticRegistry(snapshot),
      graph,
      storage,
      logger: silentLogger,
      budgetGraceMs: 300,
      onBudgetReached: (budget) => reached.push(budget),
    });
    const started = Date.now();
    const { events } = await (await runTurn(turns, 's1')).done;
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(3000);
    const final = events.find((event) => event.metadata.stage === 'final');
    expect(final?.content).toContain('时间上限');
    expect(events.at(-1)!.metadata.state).toMatchObject({ outcome: 'cancelled', reason: 'max_turn_ms', budget_stops: ['max_turn_ms'] });
    expect(reached).toEqual(['max_turn_ms']);
    expect(await storage.leases.holder(sessionLeaseKey('u1', 's1'))).toBeUndefined();
  });
});
