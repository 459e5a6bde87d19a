import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Annotation, StateGraph } from '@langchain/langgraph';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/store/index.js';
import { runStorageContract } from './storage-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'sb-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let counter = 0;
const paths = new WeakMap<object, string>();
runStorageContract('sqlite', {
  async create() {
    const path = join(directory, `contract-${counter++}.db`);
    const storage = openSqliteStorage(path);
    paths.set(storage, path);
    return storage;
  },
  async peer(storage) {
    return openSqliteStorage(paths.get(storage)!);
  },
  signalsCrossProcesses: false,
});

it('keeps the transcript across reopening the same file', async () => {
  const path = join(directory, 'reopen.db');
  const first = openSqliteStorage(path);
  await first.transcript.beginTurn({ turnId: 't1', userId: 'u1', sessionId: 's1', query: '你好', traceId: 'x', createdAt: new Date().toISOString() });
  await first.close();
  const second = openSqliteStorage(path);
  expect((await second.transcript.listMessages('u1', 's1')).map((row) => row.content)).toEqual(['你好']);
  await second.close();
});

it('upgrades a file written by the first release in place', async () => {
  const path = join(directory, 'v1.db');
  const db = new Database(path);
  db.exec(`CREATE TABLE sb_sessions (user_id TEXT NOT NULL, session_id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (user_id, session_id));
    CREATE TABLE sb_messages (user_id TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL, metadata TEXT, created_at TEXT NOT NULL, PRIMARY KEY (user_id, session_id, seq));
    INSERT INTO sb_sessions VALUES ('u1', 's1', '2026-01-01', '2026-01-01');
    INSERT INTO sb_messages VALUES ('u1', 's1', 1, 'user', 'old question', NULL, '2026-01-01'), ('u1', 's1', 2, 'assistant', 'old answer', '{"outcome":"completed"}', '2026-01-01');`);
  db.close();
  const storage = openSqliteStorage(path);
  await storage.transcript.beginTurn({ turnId: 't2', userId: 'u1', sessionId: 's1', query: 'new', traceId: 'x', createdAt: new Date().toISOString() });
  expect((await storage.transcript.listMessages('u1', 's1')).map((row) => [row.seq, row.content])).toEqual([
    [1, 'old question'],
    [2, 'old answer'],
    [3, 'new'],
  ]);
  await storage.close();
});

it("takes the session's lease in the turn's start write and lets go of it in the finish write", async () => {
  const storage = openSqliteStorage(join(directory, 'lease-with-transcript.db'));
  try {
    expect(storage.leases.withTranscript).toBe(true);
    const at = new Date().toISOString();
    const start = (turnId: string, holder: string) => ({ turnId, userId: 'u1', sessionId: 's1', query: '订酒店', traceId: 't', createdAt: at, lease: { key: 'session:s1', holder, ttlMs: 10000 } });
    const begunA = await storage.transcript.beginTurn(start('turn_a', 'A'));
    expect({ interrupted: begunA.interrupted, leaseTaken: begunA.leaseTaken }).toEqual({ interrupted: [], leaseTaken: true });
    await begunA.durable;
    expect(await storage.leases.holder('session:s1')).toBe('A');
    // Held by A: B's start writes nothing.
    expect(await storage.transcript.beginTurn(start('turn_b', 'B'))).toEqual({ interrupted: [], leaseTaken: false });
    expect(await storage.transcript.getTurn('turn_b')).toBeUndefined();
    expect((await storage.transcript.listMessages('u1', 's1')).map((message) => message.turn_id)).toEqual(['turn_a']);
    const finish = { content: '好的', outcome: 'completed' as const, createdAt: at, releaseLease: { key: 'session:s1', holder: 'A' } };
    expect(await storage.transcript.finishTurn('turn_a', finish)).toBe(true);
    expect(await storage.leases.holder('session:s1')).toBeUndefined();
    // A finish that records nothing (the turn already closed) still lets go of the lease.
    expect(await storage.leases.acquire('session:s1', 'A', 10000)).toBe(true);
    expect(await storage.transcript.finishTurn('turn_a', finish)).toBe(false);
    expect(await storage.leases.holder('session:s1')).toBeUndefined();
    // Another holder's finish leaves a lease it does not hold.
    expect((await storage.transcript.beginTurn(start('turn_b', 'B'))).leaseTaken).toBe(true);
    expect(await storage.transcript.finishTurn('turn_a', finish)).toBe(false);
    expect(await storage.leases.holder('session:s1')).toBe('B');
    expect((await storage.transcript.listMessages('u1', 's1')).map((message) => `${message.role}:${message.turn_id}`)).toEqual(['user:turn_a', 'assistant:turn_a', 'user:turn_b']);
  } finally {
    await storage.close();
  }
});

it("prunes a thread to its newest checkpoint and that checkpoint's writes, leaving other threads alone", async () => {
  const path = join(directory, 'prune.db');
  const storage = openSqliteStorage(path);
  try {
    const State = Annotation.Root({ count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
    const graph = new StateGraph(State)
      .addNode('add', () => ({ count: 1 }))
      .addEdge('__start__', 'add')
      .addEdge('add', '__end__')
      .compile({ checkpointer: storage.checkpointer });
    // Pruning before the checkpointer made its tables, and pruning a thread with no checkpoint, change nothing.
    await storage.pruneCheckpoints('u1:none');
    for (const thread of ['u1:a', 'u1:b']) for (let turn = 0; turn < 3; turn++) await graph.invoke({ count: 0 }, { configurable: { thread_id: thread } });
    await storage.pruneCheckpoints('u1:none');
    const db = new Database(path, { readonly: true });
    const rows = (table: string, thread: string) => db.prepare<[string], { checkpoint_id: string }>(`SELECT checkpoint_id FROM ${table} WHERE thread_id = ?`).all(thread).map((row) => row.checkpoint_id);
    const newest = (thread: string) => [...rows('checkpoints', thread)].sort().at(-1)!;
    const before = { checkpoints: rows('checkpoints', 'u1:b').length, writes: rows('writes', 'u1:b').length };
    expect(before.checkpoints).toBeGreaterThan(1);
    expect(rows('writes', 'u1:a').some((id) => id !== newest('u1:a'))).toBe(true);
    const kept = newest('u1:a');
    await storage.pruneCheckpoints('u1:a');
    expect(rows('checkpoints', 'u1:a')).toEqual([kept]);
    expect(new Set(rows('writes', 'u1:a'))).toEqual(new Set(rows('writes', 'u1:a').length > 0 ? [kept] : []));
    expect({ checkpoints: rows('checkpoints', 'u1:b').length, writes: rows('writes', 'u1:b').length }).toEqual(before);
    db.close();
    expect((await graph.getState({ configurable: { thread_id: 'u1:a' } })).values.count).toBe(3);
  } finally {
    await storage.close();
  }
});
