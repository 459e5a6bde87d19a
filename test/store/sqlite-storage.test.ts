import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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
