import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { writeGroupOf } from './sqlite-write-group.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];
const dbs: Database.Database[] = [];
const checkpointers: WalCheckpointer[] = [];
afterEach(async () => {
  for (const checkpointer of checkpointers.splice(0)) await checkpointer.stop();
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-wal-'));
  dirs.push(dir);
  return dir;
}

function openFile(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  dbs.push(db);
  return db;
}

const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const autocheckpoint = (db: Database.Database) => db.pragma('wal_autocheckpoint', { simple: true });

function rowsOf(path: string, table: string): number {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;
  } finally {
    reader.close();
  }
}

/** Rows of `t` in the database file alone (copied without its WAL): what a checkpoint copied there. */
function rowsInDatabaseFile(path: string): number {
  const copy = `${path}.copy`;
  copyFileSync(path, copy);
  const reader = new Database(copy, { readonly: true });
  try {
    return reader.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM t').get()!.n;
  } finally {
    reader.close();
    rmSync(copy, { force: true });
  }
}

describe('WAL checkpoints in a worker thread', () => {
  it('copies committed pages into the database file off the serving connection, and empties the WAL once idle', async () => {
    const path = join(scratch(), 'wal.db');
    const db = openFile(path);
    const checkpointer = startWalCheckpointer(db, path, { intervalMs: 20 });
    checkpointers.push(checkpointer);
    await checkpointer.ready;
    expect(checkpointer.running).toBe(true);
    // The serving connection never checkpoints by itself.
    expect(autocheckpoint(db)).toBe(0);
    const group = writeGroupOf(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let batch = 0; batch < 20; batch++) await group.write(() => { for (let row = 0; row < 50; row++) insert.run('x'.repeat(500)); });
    expect(walBytes(path)).toBeGreaterThan(0);
    // Idle: the worker copies everything and truncates the WAL to nothing.
    for (let wait = 0; wait < 100 && walBytes(path) > 0; wait++) await sleep(20);
    expect(walBytes(path)).toBe(0);
    expect(rowsInDatabaseFile(path)).toBe(1000);
  });

  it('keeps the WAL bounded, starting it over, while commits never stop', async () => {
    const path = join(scratch(), 'busy.db');
    const db = openFile(path);
    const checkpointer = startWalCheckpointer(db, path, { intervalMs: 10, maxFrames: 400 });
    checkpointers.push(checkpointer);
    await checkpointer.ready;
    const group = writeGroupOf(db);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    let largest = 0;
    let rows = 0;
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      // About 10 pages a commit (a row of 3000 bytes takes a page of its own), with never a pause of a whole interval.
      await group.write(() => {
        for (let row = 0; row < 10; row++) insert.run(`${rows++}`.padEnd(3000, '.'));
      });
      largest = Math.max(largest, walBytes(path));
      await sleep(1);
    }
    // A commit that found every frame copied started the WAL over: its header's checkpoint sequence counts them.
    const restarts = readFileSync(`${path}-wal`).readUInt32BE(12);
    expect(restarts).toBeGreaterThanOrEqual(2);
    // Without a restart the WAL would hold a frame for every page written.
    expect(largest).toBeLessThan((rows * pageSize) / 2);
  });

  it('gives checkpointing back to the serving connection when stopped or when the worker cannot open the file', async () => {
    const dir = scratch();
    const path = join(dir, 'served.db');
    const db = openFile(path);
    const stopped = startWalCheckpointer(db, path);
    await stopped.ready;
    expect(autocheckpoint(db)).toBe(0);
    await stopped.stop();
    expect(stopped.running).toBe(false);
    expect(autocheckpoint(db)).toBe(1000);
    // The worker opens only an existing file: here it fails, and the serving connection checkpoints as SQLite does.
    const failed = startWalCheckpointer(db, join(dir, 'missing.db'));
    checkpointers.push(failed);
    await failed.ready;
    expect(failed.running).toBe(false);
    expect(autocheckpoint(db)).toBe(1000);
  });

  it('loses no committed write when the process is killed while the worker checkpoints', async () => {
    const dir = scratch();
    const path = join(dir, 'crash.db');
    const script = join(dir, 'writer.mts');
    const storage = pathToFileURL(join(process.cwd(), 'src/store/index.ts')).href;
    // Each line out is a turn whose start write resolved: committed, as a caller of the storage is told.
    writeFileSync(
      script,
      `import { openSqliteStorage } from ${JSON.stringify(storage)};
const storage = openSqliteStorage(process.argv[2]);
for (let n = 1; ; n++) {
  const begun = await storage.transcript.beginTurn({ turnId: 't' + n, userId: 'u', sessionId: 's' + n, query: 'q'.repeat(2000), traceId: 'x', createdAt: new Date().toISOString() });
  await begun.durable;
  process.stdout.write(n + '\\n');
}
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const killedAfter = await new Promise<number>((resolve, reject) => {
      let firstAt = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        firstAt ||= Date.now();
        // Long enough for several checkpoints (one every 100 ms) between commits.
        if (Date.now() - firstAt > 1200 && child.exitCode === null && !child.killed) {
          const committed = Number(output.trimEnd().split('\n').at(-1));
          child.kill('SIGKILL');
          resolve(committed);
        }
      });
      child.once('exit', (code) => reject(new Error(`the writer exited (${code}): ${errors}`)));
    });
    await new Promise((resolve) => (child.exitCode === null && child.signalCode === null ? child.once('exit', resolve) : resolve(undefined)));
    expect(killedAfter).toBeGreaterThan(50);
    const reopened = new Database(path);
    dbs.push(reopened);
    const turns = reopened.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM sb_turns').get()!.n;
    expect(turns).toBeGreaterThanOrEqual(killedAfter);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
  }, 60_000);

  it('lets a process whose last step is closing the storage end normally, the WAL checkpointed', async () => {
    const dir = scratch();
    const path = join(dir, 'cli.db');
    const script = join(dir, 'close.mts');
    const storage = pathToFileURL(join(process.cwd(), 'src/store/index.ts')).href;
    writeFileSync(
      script,
      `import { openSqliteStorage } from ${JSON.stringify(storage)};
const storage = openSqliteStorage(process.argv[2]);
await storage.transcript.beginTurn({ turnId: 't1', userId: 'u', sessionId: 's', query: 'q', traceId: 'x', createdAt: new Date().toISOString() });
await storage.close();
process.stdout.write('closed');
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    // An unsettled wait on the worker would end the process with code 13 before 'closed'.
    expect({ code, output }).toEqual({ code: 0, output: 'closed' });
    expect(walBytes(path)).toBe(0);
    expect(rowsOf(path, 'sb_turns')).toBe(1);
  }, 60_000);
});
