import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSqliteStorage } from './sqlite-store.js';
import { runMessageStoreContract } from './message-store-contract.js';

const directory = mkdtempSync(join(tmpdir(), 'sb-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let counter = 0;
runMessageStoreContract('sqlite file', () => openSqliteStorage(join(directory, `contract-${counter++}.db`)).messages);

it('keeps messages across reopening the same file', async () => {
  const path = join(directory, 'reopen.db');
  const first = openSqliteStorage(path);
  await first.messages.appendMessages('u1', 's1', [{ seq: 1, role: 'user', content: '你好', created_at: new Date().toISOString() }]);
  await first.close();
  const second = openSqliteStorage(path);
  expect((await second.messages.listMessages('u1', 's1')).map((row) => row.content)).toEqual(['你好']);
  await second.close();
});
