/**
 * The storage contract on the real PostgreSQL (and PostgreSQL + Redis), plus
 * what only Postgres has: numbered migrations under an advisory lock.
 */
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { silentLogger } from '../../src/logger.js';
import { emptyCheckpoint } from '@langchain/langgraph';
import { checkpointThread, openStorage, type Storage } from '../../src/store/index.js';
import { createSchemaFactory, deleteRedisPrefix, postgresAvailable, redisAvailable, redisPrefix, TEST_REDIS_URL } from '../support/services.js';
import { runStorageContract } from './storage-contract.js';

const hasPostgres = await postgresAvailable();
const hasRedis = hasPostgres && (await redisAvailable());
const databases = createSchemaFactory('scale_store');
const prefixes: string[] = [];
afterAll(async () => {
  // Dropping a database takes a moment on a busy machine.
  if (hasPostgres) await databases.dropAll();
  if (hasRedis) for (const prefix of prefixes) await deleteRedisPrefix(prefix);
}, 60000);

const urls = new WeakMap<Storage, { databaseUrl: string; schema: string; prefix?: string }>();

describe.skipIf(!hasPostgres)('postgres', () => {
  runStorageContract('postgres', {
    async create() {
      const { databaseUrl, schema } = await databases.create();
      const storage = await openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger });
      urls.set(storage, { databaseUrl, schema });
      return storage;
    },
    async peer(storage) {
      const { databaseUrl, schema } = urls.get(storage)!;
      return openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger });
    },
    signalsCrossProcesses: true,
  });

  it('migrates once when replicas start at the same moment, and records the version', async () => {
    const { databaseUrl, schema } = await databases.create();
    const opened = await Promise.all(Array.from({ length: 4 }, () => openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger })));
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`SET search_path = ${schema}`);
      const { rows } = await client.query<{ version: number; name: string }>('SELECT version, name FROM schema_version ORDER BY version');
      expect(rows).toEqual([{ version: 1, name: '001-initial.sql' }, { version: 2, name: '002-profiles.sql' }, { version: 3, name: '003-turn-records.sql' }, { version: 4, name: '004-a2a-tasks.sql' }, { version: 5, name: '005-leased-turns.sql' }, { version: 6, name: '006-next-seq-reads-one-row.sql' }]);
      const tables = (await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema])).rows.map((row) => row.table_name);
      expect(tables).toEqual(expect.arrayContaining(['sb_turns', 'sb_messages', 'sb_events', 'checkpoints', 'checkpoint_blobs']));
    } finally {
      await client.end();
      await Promise.all(opened.map((storage) => storage.close()));
    }
    // Reopening an up-to-date database applies nothing and keeps the data.
    const again = await openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger });
    await again.close();
  });

  it('stores event batches, task outcomes and profile rows with the next statement of a turn (one round trip), or alone within 50 ms', async () => {
    const { databaseUrl, schema } = await databases.create();
    let statements = 0;
    const storage = await openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger, onQuery: () => statements++ });
    try {
      const at = new Date().toISOString();
      const turn = { turnId: 'turn_carried', userId: 'u1', sessionId: 's1', query: '订酒店', traceId: 'trace-1', createdAt: at, metadata: {} };
      await storage.transcript.beginTurn(turn);
      await storage.tasks.recordDispatch({ task_id: 't1', turn_id: turn.turnId, user_id: 'u1', session_id: 's1', agent_id: 'hotel', inputs: {}, created_at: at });
      statements = 0;
      const stored = storage.events.appendEvents(turn.turnId, [{ seq: 1, data: '{"stage":"dispatch"}' }]);
      const settled = storage.tasks.updateTask('t1', 'completed');
      const profiled = storage.profiles.record('u1', [{ key: 'city', value: '北京', session_id: 's1', turn_id: turn.turnId, at }]);
      const started0 = Date.now();
      // The carrier: the turn's finish (as a business turn's checkpoint carries them).
      expect(await storage.transcript.finishTurn(turn.turnId, { content: '好的', outcome: 'completed', createdAt: at })).toBe(true);
      await Promise.all([stored, settled, profiled]);
      expect(statements).toBe(1);
      expect(Date.now() - started0).toBeLessThan(1000);
      expect(await storage.profiles.get('u1')).toMatchObject([{ key: 'city', value: '北京', hits: 1 }]);
      // A turn's start carrying the user's profile rows does not read them (same statement): the turn's read sees them after.
      const again = storage.profiles.record('u1', [{ key: 'city', value: '北京', session_id: 's1', turn_id: 'turn_next', at }]);
      await storage.transcript.beginTurn({ ...turn, turnId: 'turn_next' });
      await again;
      expect(await storage.profiles.get('u1')).toMatchObject([{ key: 'city', value: '北京', hits: 2 }]);
      expect(await storage.events.listEvents(turn.turnId)).toEqual([{ seq: 1, data: '{"stage":"dispatch"}' }]);
      expect(await storage.tasks.getTask('t1')).toMatchObject({ status: 'completed' });
      // With no statement to ride on, a batch is written on its own.
      statements = 0;
      const started = Date.now();
      await storage.events.appendEvents(turn.turnId, [{ seq: 2, data: '{"stage":"progress"}' }]);
      expect(statements).toBe(1);
      expect(Date.now() - started).toBeLessThan(1000);
      expect((await storage.events.listEvents(turn.turnId, 1)).map((event) => event.seq)).toEqual([2]);
    } finally {
      await storage.close();
    }
  });
  it('carries only the kinds of rows waiting: task outcomes and profile rows without events, or a task outcome alone', async () => {
    const { databaseUrl, schema } = await databases.create();
    let statements = 0;
    const storage = await openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger, onQuery: () => statements++ });
    try {
      const at = new Date().toISOString();
      const turn = { turnId: 'turn_kinds', userId: 'u1', sessionId: 's1', query: '订酒店', traceId: 'trace-1', createdAt: at, metadata: {} };
      const dispatch = (taskId: string) => ({ task_id: taskId, turn_id: turn.turnId, user_id: 'u1', session_id: 's1', agent_id: 'hotel', inputs: { city: '北京' }, created_at: at });
      await storage.transcript.beginTurn(turn);
      await storage.tasks.recordDispatch(dispatch('t1'));
      statements = 0;
      const settled = storage.tasks.updateTask('t1', 'failed', 'timeout');
      const profiled = storage.profiles.record('u1', [{ key: 'city', value: '上海', session_id: 's1', turn_id: turn.turnId, at }]);
      // The next dispatch carries both (its own parameters come after theirs).
      await storage.tasks.recordDispatch(dispatch('t2'));
      await Promise.all([settled, profiled]);
      expect(statements).toBe(1);
      expect(await storage.tasks.getTask('t1')).toMatchObject({ status: 'failed', detail: 'timeout' });
      expect(await storage.tasks.getTask('t2')).toMatchObject({ status: 'dispatched', inputs: { city: '北京' } });
      expect(await storage.profiles.get('u1')).toMatchObject([{ key: 'city', value: '上海', hits: 1 }]);
      statements = 0;
      const settledAlone = storage.tasks.updateTask('t2', 'completed');
      expect(await storage.transcript.finishTurn(turn.turnId, { content: '好的', outcome: 'completed', createdAt: at, events: [{ seq: 1, data: '{"stage":"final"}' }] })).toBe(true);
      await settledAlone;
      expect(statements).toBe(1);
      expect(await storage.tasks.getTask('t2')).toMatchObject({ status: 'completed' });
      expect(await storage.events.listEvents(turn.turnId)).toEqual([{ seq: 1, data: '{"stage":"final"}' }]);
      expect((await storage.transcript.listMessages('u1', 's1')).map((message) => [message.seq, message.role])).toEqual([
        [1, 'user'],
        [2, 'assistant'],
      ]);
    } finally {
      await storage.close();
    }
  });
  it("takes a session's lease with the turn's start and lets go of it with its finish, one statement each", async () => {
    const { databaseUrl, schema } = await databases.create();
    let statements = 0;
    const storage = await openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger, onQuery: () => statements++ });
    try {
      expect(storage.leases.withTranscript).toBe(true);
      const at = new Date().toISOString();
      const start = (turnId: string, holder: string) => ({ turnId, userId: 'u1', sessionId: 's1', query: '订酒店', traceId: 't', createdAt: at, lease: { key: 'session:s1', holder, ttlMs: 10000 } });
      statements = 0;
      expect(await storage.transcript.beginTurn(start('turn_a', 'A'))).toEqual({ interrupted: [], leaseTaken: true });
      expect(statements).toBe(1);
      expect(await storage.leases.holder('session:s1')).toBe('A');
      // Held by A: B's start writes nothing.
      expect(await storage.transcript.beginTurn(start('turn_b', 'B'))).toEqual({ interrupted: [], leaseTaken: false });
      expect(await storage.transcript.getTurn('turn_b')).toBeUndefined();
      expect((await storage.transcript.listMessages('u1', 's1')).map((message) => message.turn_id)).toEqual(['turn_a']);
      statements = 0;
      const finish = { content: '好的', outcome: 'completed' as const, createdAt: at, releaseLease: { key: 'session:s1', holder: 'A' } };
      expect(await storage.transcript.finishTurn('turn_a', finish)).toBe(true);
      expect(statements).toBe(1);
      expect(await storage.leases.holder('session:s1')).toBeUndefined();
      // A finish that records nothing (the turn already closed) still lets go of the lease.
      expect(await storage.leases.acquire('session:s1', 'A', 10000)).toBe(true);
      expect(await storage.transcript.finishTurn('turn_a', finish)).toBe(false);
      expect(await storage.leases.holder('session:s1')).toBeUndefined();
      expect(await storage.transcript.beginTurn(start('turn_b', 'B'))).toEqual({ interrupted: [], leaseTaken: true });
      expect((await storage.transcript.listMessages('u1', 's1')).map((message) => `${message.role}:${message.turn_id}`)).toEqual(['user:turn_a', 'assistant:turn_a', 'user:turn_b']);
    } finally {
      await storage.close();
    }
  });
  it("reads the thread's newest checkpoint with the turn's start; the graph's read takes it without a round trip, once", async () => {
    const { databaseUrl, schema } = await databases.create();
    let statements = 0;
    const storage = await openStorage({ databaseUrl, postgresSchema: schema, logger: silentLogger, onQuery: () => statements++ });
    try {
      const thread = { configurable: { thread_id: checkpointThread('u1', 's2'), checkpoint_ns: '' } };
      const at = new Date().toISOString();
      const start = (turnId: string) => ({ turnId, userId: 'u1', sessionId: 's2', query: 'q', traceId: 't', createdAt: at });
      // A first turn: no checkpoint yet, and none is read.
      await storage.transcript.beginTurn(start('turn_1'));
      statements = 0;
      expect(await storage.checkpointer.getTuple(thread)).toBeUndefined();
      expect(statements).toBe(0);
      const checkpoint = { ...emptyCheckpoint(), channel_values: { memory: { city: '北京' } }, channel_versions: { memory: 1 } };
      await storage.checkpointer.put(thread, checkpoint, { source: 'loop', step: 0, parents: {} }, { memory: 1 });
      await storage.transcript.beginTurn(start('turn_2'));
      statements = 0;
      const prefetched = await storage.checkpointer.getTuple(thread);
      expect(statements).toBe(0);
      const read = await storage.checkpointer.getTuple(thread);
      expect(statements).toBe(1);
      expect(prefetched).toEqual(read);
      expect(prefetched?.checkpoint.channel_values).toEqual({ memory: { city: '北京' } });
      // A checkpoint written after the start drops what the start read.
      await storage.transcript.beginTurn(start('turn_3'));
      await storage.checkpointer.put(thread, { ...checkpoint, id: emptyCheckpoint().id, channel_values: { memory: { city: '上海' } }, channel_versions: { memory: 2 } }, { source: 'loop', step: 1, parents: {} }, { memory: 2 });
      expect((await storage.checkpointer.getTuple(thread))?.checkpoint.channel_values).toEqual({ memory: { city: '上海' } });
    } finally {
      await storage.close();
    }
  });
});

describe.skipIf(!hasRedis)('postgres + redis', () => {
  runStorageContract('postgres+redis', {
    async create() {
      const { databaseUrl, schema } = await databases.create();
      const prefix = redisPrefix('scale');
      prefixes.push(prefix);
      const storage = await openStorage({ databaseUrl, postgresSchema: schema, redisUrl: TEST_REDIS_URL, redisPrefix: prefix, logger: silentLogger });
      expect(storage.kind).toBe('postgres+redis');
      // Leases live in Redis: a turn takes and lets go of its lease apart from its writes.
      expect(storage.leases.withTranscript).toBeUndefined();
      urls.set(storage, { databaseUrl, schema, prefix });
      return storage;
    },
    async peer(storage) {
      const { databaseUrl, schema, prefix } = urls.get(storage)!;
      return openStorage({ databaseUrl, postgresSchema: schema, redisUrl: TEST_REDIS_URL, redisPrefix: prefix, logger: silentLogger });
    },
    signalsCrossProcesses: true,
  });

  it('refuses to start with a Redis that is not there, naming REDIS_URL', async () => {
    const { databaseUrl, schema } = await databases.create();
    await expect(openStorage({ databaseUrl, postgresSchema: schema, redisUrl: 'redis://127.0.0.1:1', logger: silentLogger })).rejects.toThrow(/REDIS_URL/);
  });
});
