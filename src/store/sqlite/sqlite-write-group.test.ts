import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { writeGroupOf } from './sqlite-write-group.js';

const dirs: string[] = [];
const dbs: Database.Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openFile(path?: string): { db: Database.Database; path: string } {
  if (!path) {
    const dir = mkdtempSync(join(tmpdir(), 'sb-group-'));
    dirs.push(dir);
    path = join(dir, 'group.db');
  }
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS t (id TEXT PRIMARY KEY, v TEXT NOT NULL)');
  dbs.push(db);
  return { db, path };
}

/** The rows another connection reads: what is committed. */
function committedRows(path: string): number {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM t').get()!.n;
  } finally {
    reader.close();
  }
}

describe('the SQLite write group', () => {
  it('commits the writes of one loop turn together, and each resolves only once they are committed', async () => {
    const { db, path } = openFile();
    const group = writeGroupOf(db);
    const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
    const writes = [1, 2, 3].map((n) => group.write(() => insert.run(`k${n}`, 'v').changes));
    // Run at once, inside one open transaction that no other connection sees yet.
    expect(db.inTransaction).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 3 });
    expect(committedRows(path)).toBe(0);
    expect(await Promise.all(writes)).toEqual([1, 1, 1]);
    expect(db.inTransaction).toBe(false);
    expect(committedRows(path)).toBe(3);
  });

  it('fails only the write that failed, and commits the others of its group', async () => {
    const { db, path } = openFile();
    const group = writeGroupOf(db);
    const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
    const first = group.write(() => insert.run('a', '1'));
    const duplicate = group.write(() => insert.run('a', '2'));
    const atomic = group.write(
      db.transaction(() => {
        insert.run('b', '1');
        insert.run('a', '3');
      }),
    );
    const last = group.write(() => insert.run('c', '1'));
    await expect(duplicate).rejects.toThrow(/UNIQUE/);
    await expect(atomic).rejects.toThrow(/UNIQUE/);
    await first;
    await last;
    expect(committedRows(path)).toBe(2);
    expect(db.prepare('SELECT id, v FROM t ORDER BY id').all()).toEqual([
      { id: 'a', v: '1' },
      { id: 'c', v: '1' },
    ]);
  });

  it('fails every write of a group whose commit fails', async () => {
    const { db } = openFile();
    const group = writeGroupOf(db);
    const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
    const writes = [group.write(() => insert.run('x', '1')), group.write(() => insert.run('y', '1'))];
    // Something outside the group ends its transaction: the group's writes are gone, and said to be.
    db.prepare('ROLLBACK').run();
    for (const write of writes) await expect(write).rejects.toThrow(/rolled back/);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 0 });
    await group.write(() => insert.run('z', '1'));
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 1 });
  });

  it('lets a second connection of the process write in the same loop turn without waiting on the first', async () => {
    const { db, path } = openFile();
    const { db: peer } = openFile(path);
    const mine = writeGroupOf(db);
    const theirs = writeGroupOf(peer);
    const started = Date.now();
    const ahead = mine.writeAhead(() => db.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run('lease', 'A').changes);
    expect(ahead).toBe(1);
    // The peer's group first commits the one open here, so it sees the row and never waits for the busy timeout.
    const taken = await theirs.write(() => peer.prepare("INSERT INTO t (id, v) VALUES ('lease', 'B') ON CONFLICT DO NOTHING").run().changes);
    expect(taken).toBe(0);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(committedRows(path)).toBe(1);
  });

  it('runs a write inside a transaction that is not a group as part of it', async () => {
    const { db, path } = openFile();
    const group = writeGroupOf(db);
    let inner: Promise<unknown> | undefined;
    db.transaction(() => {
      inner = group.write(() => db.prepare('INSERT INTO t (id, v) VALUES (?, ?)').run('in', '1'));
    })();
    await inner;
    expect(committedRows(path)).toBe(1);
  });

  it('runs a task between two groups: after the commit, before the writes resolve and a caller opens the next', async () => {
    const { db, path } = openFile();
    const group = writeGroupOf(db);
    const insert = db.prepare('INSERT INTO t (id, v) VALUES (?, ?)');
    const seen: string[] = [];
    // No transaction open: at once.
    group.betweenGroups(() => seen.push(`now:${db.inTransaction}`));
    expect(seen).toEqual(['now:false']);
    const write = group.write(() => insert.run('a', '1')).then(() => {
      seen.push('resolved');
      return group.write(() => insert.run('b', '1'));
    });
    group.betweenGroups(() => seen.push(`between:${db.inTransaction}:${committedRows(path)}`));
    expect(seen).toEqual(['now:false']);
    await write;
    expect(seen).toEqual(['now:false', 'between:false:1', 'resolved']);
    // A task that throws touches neither the writes nor the next task.
    const failing = group.write(() => insert.run('c', '1'));
    group.betweenGroups(() => {
      throw new Error('no');
    });
    group.betweenGroups(() => seen.push('after'));
    await failing;
    expect(seen.at(-1)).toBe('after');
    expect(committedRows(path)).toBe(3);
  });
});
