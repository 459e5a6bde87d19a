/**
 * The one contract suite every storage backend passes (SQLite, Postgres,
 * Postgres + Redis), the way LangGraph's checkpoint-validation runs one suite
 * on every saver. Call it from a test file with a factory for a fresh, empty
 * storage; `peer` (optional) opens a second storage on the same backend, as a
 * second replica would, to check what must hold across processes.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Annotation, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { checkpointThread, ownerKey, type A2aTaskRow, type Storage, type TurnStart } from '../../src/store/index.js';
import { describeTurnRecords } from './turn-records-contract.js';
import { describeA2aTaskLifetime } from './a2a-tasks-contract.js';
import { runTurnHistoryContract } from './turn-history-contract.js';

export interface StorageFactory {
  create(): Promise<Storage>;
  /** A second storage on the same backend as `storage` (another replica). */
  peer?(storage: Storage): Promise<Storage>;
  /** Whether signals published on one storage reach a peer (false on SQLite: in-process). */
  signalsCrossProcesses?: boolean;
}

function start(overrides: Partial<TurnStart> = {}): TurnStart {
  return {
    turnId: `turn_${randomUUID().replaceAll('-', '')}`,
    userId: 'u1',
    sessionId: 's1',
    query: '帮我订北京的酒店',
    traceId: 'trace-1',
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

const finish = (content: string) => ({ content, outcome: 'completed' as const, createdAt: new Date().toISOString() });

async function withStorage(factory: StorageFactory, body: (storage: Storage) => Promise<void>): Promise<void> {
  const storage = await factory.create();
  try {
    await body(storage);
  } finally {
    await storage.close();
  }
}

export function runStorageContract(name: string, factory: StorageFactory): void {
  describe(`storage contract: ${name}`, () => {
    runTurnHistoryContract(factory);
    describe('transcript', () => {
      it('writes the user row ahead and the answer row at the end', async () => {
        await withStorage(factory, async ({ transcript }) => {
          const turn = start();
          expect(await transcript.sessionAccess('u1', 's1')).toBe('none');
          expect((await transcript.beginTurn(turn)).interrupted).toEqual([]);
          expect(await transcript.sessionAccess('u1', 's1')).toBe('owner');
          expect(await transcript.sessionAccess('u2', 's1')).toBe('other');
          const during = await transcript.listMessages('u1', 's1');
          expect(during.map((row) => [row.seq, row.role, row.content, row.turn_id])).toEqual([[1, 'user', turn.query, turn.turnId]]);
          expect((await transcript.getTurn(turn.turnId))?.status).toBe('running');
          expect(await transcript.finishTurn(turn.turnId, { ...finish('好的'), metadata: { agents: ['hotel'] } })).toBe(true);
          const after = await transcript.listMessages('u1', 's1');
          expect(after.map((row) => [row.seq, row.role, row.content])).toEqual([
            [1, 'user', turn.query],
            [2, 'assistant', '好的'],
          ]);
          expect(after[1]!.metadata).toMatchObject({ outcome: 'completed', agents: ['hotel'], trace_id: 'trace-1' });
          const record = await transcript.getTurn(turn.turnId);
          expect(record).toMatchObject({ status: 'completed', user_id: 'u1', session_id: 's1', trace_id: 'trace-1' });
          expect(record?.finished_at).toBeTypeOf('string');
        });
      });

      it('stores the last events of a turn with its answer row, after the ones stored before', async () => {
        await withStorage(factory, async ({ transcript, events }) => {
          const turn = start();
          await transcript.beginTurn(turn);
          await events.appendEvents(turn.turnId, [{ seq: 1, data: '{"stage":"intent_start"}' }]);
          const last = [
            { seq: 2, data: '{"stage":"final"}' },
            { seq: 3, data: '{"stage":"done"}' },
          ];
          expect(await transcript.finishTurn(turn.turnId, { ...finish('好的'), events: last })).toBe(true);
          expect(await events.listEvents(turn.turnId)).toEqual([{ seq: 1, data: '{"stage":"intent_start"}' }, ...last]);
          expect((await transcript.listMessages('u1', 's1')).map((row) => row.content)).toEqual([turn.query, '好的']);
        });
      });

      it('ignores a repeated begin or finish of the same turn (idempotent)', async () => {
        await withStorage(factory, async ({ transcript }) => {
          const turn = start();
          await transcript.beginTurn(turn);
          await transcript.beginTurn({ ...turn, query: 'again' });
          expect(await transcript.finishTurn(turn.turnId, finish('first'))).toBe(true);
          expect(await transcript.finishTurn(turn.turnId, finish('second'))).toBe(false);
          expect(await transcript.finishTurn('turn_unknown', finish('x'))).toBe(false);
          expect((await transcript.listMessages('u1', 's1')).map((row) => row.content)).toEqual([turn.query, 'first']);
        });
      });

      it('closes a turn left running as interrupted when the next turn begins', async () => {
        await withStorage(factory, async ({ transcript }) => {
          const cut = start({ query: 'cut short' });
          await transcript.beginTurn(cut);
          const next = start({ query: 'next' });
          expect((await transcript.beginTurn(next)).interrupted).toEqual([cut.turnId]);
          expect(await transcript.finishTurn(cut.turnId, finish('late answer'))).toBe(false);
          await transcript.finishTurn(next.turnId, finish('answer'));
          const rows = await transcript.listMessages('u1', 's1');
          expect(rows.map((row) => [row.seq, row.role, row.content, row.metadata?.outcome])).toEqual([
            [1, 'user', 'cut short', undefined],
            [2, 'assistant', '', 'interrupted'],
            [3, 'user', 'next', undefined],
            [4, 'assistant', 'answer', 'completed'],
          ]);
          expect((await transcript.getTurn(cut.turnId))?.status).toBe('interrupted');
          expect((await transcript.latestTurn('u1', 's1'))?.turn_id).toBe(next.turnId);
        });
      });

      it('lists turns still running from before a time and closes one as interrupted, once', async () => {
        await withStorage(factory, async ({ transcript }) => {
          const old = start({ sessionId: 's-old', createdAt: '2026-01-01T00:00:00.000Z' });
          const recent = start({ sessionId: 's-recent', createdAt: '2026-01-01T00:10:00.000Z' });
          await transcript.beginTurn(old);
          await transcript.beginTurn(recent);
          expect((await transcript.runningTurns('2026-01-01T00:05:00.000Z', 10)).map((turn) => turn.turn_id)).toEqual([old.turnId]);
          expect(await transcript.interruptTurn(old.turnId, '2026-01-01T00:20:00.000Z')).toBe(true);
          expect(await transcript.interruptTurn(old.turnId, '2026-01-01T00:21:00.000Z')).toBe(false);
          expect((await transcript.getTurn(old.turnId))?.status).toBe('interrupted');
          expect((await transcript.listMessages('u1', 's-old')).map((row) => [row.role, row.metadata?.outcome])).toEqual([['user', undefined], ['assistant', 'interrupted']]);
          expect(await transcript.runningTurns('2026-01-01T00:05:00.000Z', 10)).toEqual([]);
        });
      });

      it('keeps sessions of different users apart, even with the same session id', async () => {
        await withStorage(factory, async ({ transcript }) => {
          await transcript.beginTurn(start({ userId: 'u1', sessionId: 'shared', query: 'from u1' }));
          await transcript.beginTurn(start({ userId: 'u2', sessionId: 'shared', query: 'from u2' }));
          expect(await transcript.sessionAccess('u2', 'shared')).toBe('owner');
          expect((await transcript.listMessages('u1', 'shared')).map((row) => row.content)).toEqual(['from u1']);
          expect((await transcript.listMessages('u2', 'shared')).map((row) => row.content)).toEqual(['from u2']);
          expect(await transcript.listMessages('u3', 'shared')).toEqual([]);
          expect(await transcript.latestTurn('u3', 'shared')).toBeUndefined();
        });
      });

      it('keeps tenants apart: the same user and session id in two tenants are two sessions; another tenant\'s session is none, not other', async () => {
        await withStorage(factory, async (storage) => {
          const { transcript } = storage;
          const alpha = ownerKey('alpha', 'u1');
          const beta = ownerKey('beta', 'u1');
          const alphaTurn = start({ userId: alpha, sessionId: 'tenant-s1', query: 'from alpha' });
          await transcript.beginTurn(alphaTurn);
          expect(await transcript.sessionAccess(beta, 'tenant-s1')).toBe('none');
          expect(await transcript.sessionAccess('u1', 'tenant-s1')).toBe('none');
          expect(await transcript.sessionAccess(ownerKey('alpha', 'u2'), 'tenant-s1')).toBe('other');
          await transcript.beginTurn(start({ userId: beta, sessionId: 'tenant-s1', query: 'from beta' }));
          expect(await transcript.sessionAccess(beta, 'tenant-s1')).toBe('owner');
          expect((await transcript.listMessages(alpha, 'tenant-s1')).map((row) => row.content)).toEqual(['from alpha']);
          expect((await transcript.listMessages(beta, 'tenant-s1')).map((row) => row.content)).toEqual(['from beta']);
          expect((await transcript.latestTurn(alpha, 'tenant-s1'))?.turn_id).toBe(alphaTurn.turnId);
          await storage.profiles.record(alpha, [{ key: 'city', value: '上海', session_id: 'tenant-s1', at: new Date().toISOString() }]);
          expect(await storage.profiles.get(beta)).toEqual([]);
          expect(await storage.forgetUser(beta)).toEqual({ sessions: 1 });
          expect(await transcript.sessionAccess(alpha, 'tenant-s1')).toBe('owner');
          expect(await storage.profiles.get(alpha)).toHaveLength(1);
        });
      });

      it('returns copies', async () => {
        await withStorage(factory, async ({ transcript }) => {
          const turn = start({ metadata: { tags: ['a'] } });
          await transcript.beginTurn(turn);
          const first = await transcript.listMessages('u1', 's1');
          first[0]!.content = 'changed';
          (first[0]!.metadata!.tags as string[]).push('b');
          const again = await transcript.listMessages('u1', 's1');
          expect(again[0]!.content).toBe(turn.query);
          expect(again[0]!.metadata!.tags).toEqual(['a']);
          const record = (await transcript.getTurn(turn.turnId))!;
          record.status = 'completed';
          expect((await transcript.getTurn(turn.turnId))!.status).toBe('running');
        });
      });
    });

    describeTurnRecords((body) => withStorage(factory, body));
    describeA2aTaskLifetime((body) => withStorage(factory, body));

    describe('turn events', () => {
      it('appends as sent and lists after a seq, idempotently', async () => {
        await withStorage(factory, async ({ events }) => {
          const frames = [1, 2, 3].map((seq) => ({ seq, data: `{"z":1,"a":"事件${seq}","metadata":{"seq":${seq}}}` }));
          await events.appendEvents('turn_a', frames.slice(0, 2));
          await events.appendEvents('turn_a', [{ seq: 2, data: 'replaced?' }, frames[2]!]);
          await events.appendEvents('turn_b', [{ seq: 1, data: '{}' }]);
          expect(await events.listEvents('turn_a')).toEqual(frames);
          expect(await events.listEvents('turn_a', 2)).toEqual([frames[2]]);
          expect(await events.listEvents('turn_a', 3)).toEqual([]);
          expect(await events.listEvents('turn_none')).toEqual([]);
          const listed = await events.listEvents('turn_a');
          listed[0]!.data = 'x';
          expect((await events.listEvents('turn_a'))[0]!.data).toBe(frames[0]!.data);
        });
      });
    });

    describe('task records', () => {
      it('records a dispatch before sending, counts retries, keeps the outcome', async () => {
        await withStorage(factory, async ({ tasks }) => {
          const task = {
            task_id: 'plan_1_task_1',
            turn_id: 'turn_1',
            user_id: 'u1',
            session_id: 's1',
            agent_id: 'hotel_agent',
            inputs: { city: '北京', phone: '138****5678' },
            created_at: new Date().toISOString(),
          };
          await tasks.recordDispatch(task);
          expect(await tasks.getTask('plan_1_task_1')).toMatchObject({ status: 'dispatched', dispatches: 1, inputs: task.inputs });
          await tasks.recordDispatch({ ...task, inputs: { city: 'changed' } });
          await tasks.updateTask('plan_1_task_1', 'completed');
          await tasks.updateTask('unknown', 'failed');
          const stored = (await tasks.getTask('plan_1_task_1'))!;
          expect(stored).toMatchObject({ status: 'completed', dispatches: 2, inputs: task.inputs, agent_id: 'hotel_agent' });
          stored.inputs.city = 'mutated';
          expect((await tasks.listTasks('turn_1')).map((row) => [row.task_id, row.inputs.city])).toEqual([['plan_1_task_1', '北京']]);
          expect(await tasks.getTask('unknown')).toBeUndefined();
          await tasks.updateTask('plan_1_task_1', 'failed', 'timeout');
          expect(await tasks.getTask('plan_1_task_1')).toMatchObject({ status: 'failed', detail: 'timeout' });
        });
      });
    });

    describe('leases', () => {
      it('has one holder at a time; renew and release need the holder', async () => {
        await withStorage(factory, async ({ leases }) => {
          const key = `session:${randomUUID()}`;
          expect(await leases.acquire(key, 'A', 10000)).toBe(true);
          expect(await leases.acquire(key, 'B', 10000)).toBe(false);
          expect(await leases.acquire(key, 'A', 10000)).toBe(true);
          expect(await leases.holder(key)).toBe('A');
          expect(await leases.renew(key, 'B', 10000)).toBe(false);
          expect(await leases.renew(key, 'A', 10000)).toBe(true);
          await leases.release(key, 'B');
          expect(await leases.holder(key)).toBe('A');
          await leases.release(key, 'A');
          expect(await leases.holder(key)).toBeUndefined();
          expect(await leases.acquire(key, 'B', 10000)).toBe(true);
        });
      });

      it('frees itself when the holder stops renewing', async () => {
        await withStorage(factory, async ({ leases }) => {
          const key = `session:${randomUUID()}`;
          expect(await leases.acquire(key, 'dead', 150)).toBe(true);
          expect(await leases.acquire(key, 'B', 10000)).toBe(false);
          await sleep(400);
          expect(await leases.holder(key)).toBeUndefined();
          expect(await leases.renew(key, 'dead', 10000)).toBe(false);
          expect(await leases.acquire(key, 'B', 10000)).toBe(true);
          expect(await leases.holder(key)).toBe('B');
        });
      });

      it('lets exactly one of many concurrent claimants win', async () => {
        await withStorage(factory, async ({ leases }) => {
          const key = `session:${randomUUID()}`;
          const results = await Promise.all(Array.from({ length: 8 }, (_, index) => leases.acquire(key, `h${index}`, 10000)));
          expect(results.filter(Boolean)).toHaveLength(1);
        });
      });
    });

    describe('signals', () => {
      it('delivers to subscribers until they unsubscribe', async () => {
        await withStorage(factory, async ({ signals }) => {
          const channel = `cancel:${randomUUID()}`;
          const received: string[] = [];
          const unsubscribe = await signals.subscribe(channel, (message) => received.push(message));
          await signals.subscribe(`other:${randomUUID()}`, () => received.push('wrong channel'));
          await signals.publish(channel, 'one');
          await expect.poll(() => received, { timeout: 3000 }).toEqual(['one']);
          await unsubscribe();
          await signals.publish(channel, 'two');
          await sleep(200);
          expect(received).toEqual(['one']);
        });
      });
    });

    describe('key-value', () => {
      it('gets, sets, expires and deletes', async () => {
        await withStorage(factory, async ({ kv }) => {
          const key = `k:${randomUUID()}`;
          expect(await kv.get(key)).toBeUndefined();
          await kv.set(key, { a: [1, '二'], b: null }, 10000);
          const value = (await kv.get(key)) as { a: unknown[] };
          expect(value).toEqual({ a: [1, '二'], b: null });
          value.a.push('mutated');
          expect(await kv.get(key)).toEqual({ a: [1, '二'], b: null });
          // The overwrite is read back under a long expiry, then given a short one: a busy machine
          // cannot make the read land after the expiry.
          await kv.set(key, 'v2', 10000);
          expect(await kv.get(key)).toBe('v2');
          await kv.set(key, 'v2', 150);
          await sleep(400);
          expect(await kv.get(key)).toBeUndefined();
          await kv.set(key, 'v3', 10000);
          await kv.delete(key);
          expect(await kv.get(key)).toBeUndefined();
        });
      });

      it('sets if absent exactly once, and again after expiry', async () => {
        await withStorage(factory, async ({ kv }) => {
          const key = `idem:${randomUUID()}`;
          // One second: the six calls and the read-back finish well inside it even on a loaded machine.
          const results = await Promise.all(Array.from({ length: 6 }, (_, index) => kv.setIfAbsent(key, `turn${index}`, 1000)));
          expect(results.filter(Boolean)).toHaveLength(1);
          const winner = results.indexOf(true);
          expect(await kv.get(key)).toBe(`turn${winner}`);
          await sleep(1300);
          expect(await kv.setIfAbsent(key, 'later', 10000)).toBe(true);
          expect(await kv.get(key)).toBe('later');
        });
      });
    });

    describe('profiles', () => {
      it('counts the same value again, lets a different value replace it, keeps users apart, returns copies', async () => {
        await withStorage(factory, async ({ profiles }) => {
          const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 10, minute)).toISOString();
          expect(await profiles.get('u1')).toEqual([]);
          await profiles.record('u1', [{ key: 'city', value: '上海', session_id: 's1', turn_id: 't1', at: at(1) }, { key: 'nights', value: 2, session_id: 's1', at: at(1) }]);
          await profiles.record('u1', [{ key: 'city', value: '上海', session_id: 's2', turn_id: 't2', at: at(2) }]);
          await profiles.record('u2', [{ key: 'city', value: '北京', session_id: 's9', at: at(3) }]);
          const facts = await profiles.get('u1');
          expect(facts).toEqual([
            { key: 'city', value: '上海', hits: 2, source: { session_id: 's2', turn_id: 't2' }, first_seen: at(1), updated_at: at(2) },
            { key: 'nights', value: 2, hits: 1, source: { session_id: 's1' }, first_seen: at(1), updated_at: at(1) },
          ]);
          facts[0]!.value = 'changed';
          await profiles.record('u1', [{ key: 'city', value: '广州', session_id: 's3', at: at(4) }]);
          expect((await profiles.get('u1'))[0]).toMatchObject({ key: 'city', value: '广州', hits: 1, first_seen: at(4) });
          // A key given twice in one call counts once, with its last value.
          await profiles.record('u1', [
            { key: 'city', value: '广州', session_id: 's4', at: at(5) },
            { key: 'city', value: '广州', session_id: 's4', turn_id: 't4', at: at(5) },
          ]);
          expect((await profiles.get('u1'))[0]).toMatchObject({ key: 'city', value: '广州', hits: 2, source: { session_id: 's4', turn_id: 't4' } });
          expect((await profiles.get('u2'))[0]).toMatchObject({ value: '北京', hits: 1 });
          await profiles.delete('u1');
          expect(await profiles.get('u1')).toEqual([]);
          expect(await profiles.get('u2')).toHaveLength(1);
        });
      });

      it('forgets a user: profile and every session go, other users stay', async () => {
        await withStorage(factory, async (storage) => {
          const user = `forget_${randomUUID().slice(0, 8)}`;
          for (const sessionId of ['s1', 's2']) {
            const turn = start({ userId: user, sessionId });
            await storage.transcript.beginTurn(turn);
            await storage.transcript.finishTurn(turn.turnId, finish('好的'));
          }
          const other = start({ userId: 'keep_me', sessionId: 's1' });
          await storage.transcript.beginTurn(other);
          await storage.profiles.record(user, [{ key: 'city', value: '上海', session_id: 's1', at: new Date().toISOString() }]);
          expect(await storage.forgetUser(user)).toEqual({ sessions: 2 });
          expect(await storage.transcript.sessionAccess(user, 's2')).toBe('none');
          expect(await storage.transcript.listMessages(user, 's1')).toEqual([]);
          expect(await storage.transcript.listMessages(user, 's2')).toEqual([]);
          expect(await storage.profiles.get(user)).toEqual([]);
          expect(await storage.transcript.sessionAccess('keep_me', 's1')).toBe('owner');
          expect(await storage.forgetUser(user)).toEqual({ sessions: 0 });
        });
      });
    });

    describe('A2A tasks', () => {
      const row = (overrides: Partial<A2aTaskRow> = {}): A2aTaskRow => ({
        owner: 'tenant:t1',
        task_id: `task-${randomUUID()}`,
        context_id: 'ctx-1',
        state: 'TASK_STATE_WORKING',
        body: JSON.stringify({ id: 'x', status: { state: 'TASK_STATE_WORKING' } }),
        updated_at: new Date().toISOString(),
        ...overrides,
      });

      it('saves, replaces and reads a task of its owner only', async () => {
        await withStorage(factory, async ({ a2aTasks }) => {
          const first = row();
          await a2aTasks.save(first);
          expect(await a2aTasks.get('tenant:t1', first.task_id)).toEqual(first);
          expect(await a2aTasks.get('tenant:t2', first.task_id)).toBeUndefined();
          const done = { ...first, state: 'TASK_STATE_COMPLETED', body: '{"done":true}', updated_at: new Date(Date.now() + 1000).toISOString() };
          await a2aTasks.save(done);
          expect(await a2aTasks.get('tenant:t1', first.task_id)).toEqual(done);
          expect(await a2aTasks.get('tenant:t1', 'no-such-task')).toBeUndefined();
        });
      });

      it('lists newest change first, filtered by context and state, with a cursor, never another owner\'s', async () => {
        await withStorage(factory, async ({ a2aTasks }) => {
          const base = Date.parse('2026-11-20T10:00:00.000Z');
          const rows = [0, 1, 2, 3].map((index) =>
            row({ task_id: `t-${index}`, context_id: index < 3 ? 'ctx-a' : 'ctx-b', state: index === 1 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING', updated_at: new Date(base + index * 1000).toISOString() }),
          );
          for (const entry of rows) await a2aTasks.save(entry);
          await a2aTasks.save(row({ owner: 'tenant:other', task_id: 't-9', context_id: 'ctx-a' }));
          expect((await a2aTasks.list('tenant:t1', { limit: 10 })).map((entry) => entry.task_id)).toEqual(['t-3', 't-2', 't-1', 't-0']);
          expect((await a2aTasks.list('tenant:t1', { contextId: 'ctx-a', limit: 10 })).map((entry) => entry.task_id)).toEqual(['t-2', 't-1', 't-0']);
          expect((await a2aTasks.list('tenant:t1', { state: 'TASK_STATE_COMPLETED', limit: 10 })).map((entry) => entry.task_id)).toEqual(['t-1']);
          const page = await a2aTasks.list('tenant:t1', { limit: 2 });
          expect(page.map((entry) => entry.task_id)).toEqual(['t-3', 't-2']);
          const next = await a2aTasks.list('tenant:t1', { limit: 2, after: { updated_at: page[1]!.updated_at, task_id: page[1]!.task_id } });
          expect(next.map((entry) => entry.task_id)).toEqual(['t-1', 't-0']);
          expect(await a2aTasks.list('tenant:none', { limit: 10 })).toEqual([]);
          expect((await a2aTasks.list('tenant:t1', { updatedAfter: rows[1]!.updated_at, limit: 10 })).map((entry) => entry.task_id)).toEqual(['t-3', 't-2']);
          expect(await a2aTasks.count('tenant:t1', {})).toBe(4);
          expect(await a2aTasks.count('tenant:t1', { contextId: 'ctx-a', state: 'TASK_STATE_WORKING' })).toBe(2);
        });
      });
    });

    describe('retention', () => {
      it('deletes finished turns older than the cutoff with their rows, keeps the rest', async () => {
        await withStorage(factory, async (storage) => {
          const old = start({ sessionId: 'old', createdAt: '2020-01-01T00:00:00.000Z' });
          await storage.transcript.beginTurn(old);
          await storage.transcript.finishTurn(old.turnId, { ...finish('old answer'), createdAt: '2020-01-01T00:00:01.000Z' });
          await storage.events.appendEvents(old.turnId, [{ seq: 1, data: '{}' }]);
          await storage.tasks.recordDispatch({ task_id: 'old_task', turn_id: old.turnId, user_id: 'u1', session_id: 'old', agent_id: 'a', inputs: {}, created_at: old.createdAt });
          const running = start({ sessionId: 'running', createdAt: '2020-01-01T00:00:00.000Z' });
          await storage.transcript.beginTurn(running);
          const recent = start({ sessionId: 'recent' });
          await storage.transcript.beginTurn(recent);
          await storage.transcript.finishTurn(recent.turnId, finish('recent answer'));
          await storage.events.appendEvents(recent.turnId, [{ seq: 1, data: '{}' }]);

          const removed = await storage.deleteOlderThan(new Date('2021-01-01T00:00:00.000Z'));
          expect(removed).toEqual({ turns: 1, messages: 2, events: 1, tasks: 1, a2aTasks: 0 });
          expect(await storage.transcript.listMessages('u1', 'old')).toEqual([]);
          expect(await storage.transcript.sessionAccess('u1', 'old')).toBe('none');
          expect(await storage.events.listEvents(old.turnId)).toEqual([]);
          expect(await storage.tasks.getTask('old_task')).toBeUndefined();
          expect(await storage.transcript.listMessages('u1', 'running')).toHaveLength(1);
          expect(await storage.transcript.listMessages('u1', 'recent')).toHaveLength(2);
          expect(await storage.events.listEvents(recent.turnId)).toHaveLength(1);
        });
      });
    });

    describe('checkpointer', () => {
      it('keeps state across turns of a thread and prunes to the newest checkpoint', async () => {
        await withStorage(factory, async (storage) => {
          const State = Annotation.Root({ count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
          const graph = new StateGraph(State)
            .addNode('add', () => ({ count: 1 }))
            .addEdge('__start__', 'add')
            .addEdge('add', '__end__')
            .compile({ checkpointer: storage.checkpointer });
          const thread = `u1:${randomUUID()}`;
          const config = { configurable: { thread_id: thread } };
          for (let turn = 0; turn < 3; turn++) await graph.invoke({ count: 0 }, config);
          expect((await graph.getState(config)).values.count).toBe(3);
          await storage.pruneCheckpoints(thread);
          const left: unknown[] = [];
          for await (const tuple of storage.checkpointer.list(config)) left.push(tuple);
          expect(left).toHaveLength(1);
          await graph.invoke({ count: 0 }, config);
          expect((await graph.getState(config)).values.count).toBe(4);
        });
      });
    });

    describe('checkpoint threads', () => {
      it("keep user a's session b:s1 apart from user a:b's session s1; forgetting a leaves a:b's memory", async () => {
        await withStorage(factory, async (storage) => {
          const State = Annotation.Root({ who: Annotation<string>({ reducer: (_a, b) => b, default: () => '' }) });
          const graph = new StateGraph(State)
            .addNode('keep', (state) => ({ who: state.who }))
            .addEdge('__start__', 'keep')
            .addEdge('keep', '__end__')
            .compile({ checkpointer: storage.checkpointer });
          const suffix = randomUUID().slice(0, 8);
          const plain = { owner: `a${suffix}`, session: 'b:s1' };
          const colon = { owner: `a${suffix}:b`, session: 's1' };
          expect(checkpointThread(plain.owner, plain.session)).not.toBe(checkpointThread(colon.owner, colon.session));
          for (const { owner, session } of [plain, colon]) {
            await storage.transcript.beginTurn(start({ userId: owner, sessionId: session }));
            await graph.invoke({ who: owner }, { configurable: { thread_id: checkpointThread(owner, session) } });
          }
          const whoIn = async ({ owner, session }: { owner: string; session: string }) =>
            (await graph.getState({ configurable: { thread_id: checkpointThread(owner, session) } })).values.who as string | undefined;
          expect(await whoIn(plain)).toBe(plain.owner);
          expect(await whoIn(colon)).toBe(colon.owner);
          expect(await storage.forgetUser(plain.owner)).toEqual({ sessions: 1 });
          expect(await whoIn(plain)).toBeUndefined();
          expect(await whoIn(colon)).toBe(colon.owner);
        });
      });
    });

    if (factory.peer) {
      const peerOf = factory.peer.bind(factory);
      describe('across replicas', () => {
        it('shares sessions, turns, leases and key-value entries', async () => {
          await withStorage(factory, async (first) => {
            const second = await peerOf(first);
            try {
              const turn = start({ sessionId: `shared-${randomUUID()}` });
              // Another replica reads the start once it is durable (`durable`, when the store says it is later).
              await (await first.transcript.beginTurn(turn)).durable;
              expect((await second.transcript.getTurn(turn.turnId))?.status).toBe('running');
              expect(await second.transcript.finishTurn(turn.turnId, finish('from B'))).toBe(true);
              expect((await first.transcript.listMessages('u1', turn.sessionId)).map((row) => row.content)).toEqual([turn.query, 'from B']);
              const key = `session:${randomUUID()}`;
              expect(await first.leases.acquire(key, 'A', 10000)).toBe(true);
              expect(await second.leases.acquire(key, 'B', 10000)).toBe(false);
              expect(await second.leases.holder(key)).toBe('A');
              const idem = `idem:${randomUUID()}`;
              expect(await first.kv.setIfAbsent(idem, 'A', 10000)).toBe(true);
              expect(await second.kv.setIfAbsent(idem, 'B', 10000)).toBe(false);
              const task = { owner: 'tenant:default', task_id: `task-${randomUUID()}`, context_id: 'c', state: 'TASK_STATE_WORKING', body: '{}', updated_at: new Date().toISOString() };
              await first.a2aTasks.save(task);
              expect(await second.a2aTasks.get(task.owner, task.task_id)).toEqual(task);
              expect(await second.kv.get(idem)).toBe('A');
            } finally {
              await second.close();
            }
          });
        });

        if (factory.signalsCrossProcesses) {
          it('delivers a signal published on one replica to a subscriber on another', async () => {
            await withStorage(factory, async (first) => {
              const second = await peerOf(first);
              try {
                const channel = `cancel:${randomUUID()}`;
                const received: string[] = [];
                await second.signals.subscribe(channel, (message) => received.push(message));
                await first.signals.publish(channel, 'stop');
                await expect.poll(() => received, { timeout: 3000 }).toEqual(['stop']);
              } finally {
                await second.close();
              }
            });
          });
        }
      });
    }
  });
}
