/**
 * Group commit for the SQLite connection (decision 0051). The writes made in
 * one turn of the event loop — every running turn's event batches, task
 * records, lease moves and turn rows — share one transaction, committed when
 * the loop turn's I/O is done (`setImmediate`), instead of one commit each:
 * a commit writes every page it touched to the WAL, so twenty turns writing
 * in the same loop turn cost one commit, not twenty.
 *
 * A write runs at once, inside the open group (`BEGIN IMMEDIATE` opens one
 * when none is; the database's write lock is then held until the commit, so
 * no other process sees or contends with what the group holds). `write`
 * resolves only once the group is committed: what it stored is durable when
 * the caller goes on, as before. `writeAhead` returns the result at once: the
 * caller may act on it in this loop turn, and the next `write` that resolves
 * (on this one connection, commits are in order) covers it. Reads on the
 * connection see the open group's rows. Statements run outside `write`
 * (the LangGraph checkpointer's) join the open group or commit alone.
 *
 * A write that fails rolls back alone (multi-statement writes are
 * `db.transaction` functions: savepoints inside the group); a failed commit,
 * or a failure that made SQLite roll back the whole transaction, fails every
 * write of the group.
 */
import type Database from 'better-sqlite3';

export interface SqliteWriteGroup {
  /** Runs `write` now in the open group; resolves with its result once the group is committed. */
  write<T>(write: () => T): Promise<T>;
  /** Runs `write` now in the open group and returns its result; the group commits at the end of this loop turn. */
  writeAhead<T>(write: () => T): T;
  /** Settles when what was written so far is committed (at once when no group is open); rejects when its group failed. */
  committed(): Promise<void>;
  /** Commits the open group now (before the connection closes). */
  commit(): void;
  /**
   * Runs `task` once between two groups: right after the open group's commit, before its writes resolve (so
   * before any of their callers can open the next group), or now when no transaction is open.
   */
  betweenGroups(task: () => void): void;
}

interface OpenGroup {
  settles: { resolve: () => void; reject: (error: unknown) => void }[];
  failed?: unknown;
}

const groups = new WeakMap<Database.Database, SqliteWriteGroup>();
/**
 * The commits of the groups open in this process. Two connections of one process on one file (tests, a CLI
 * reading beside the server) would wait on each other's write lock with the loop blocked: a group opening on
 * one connection first commits those of the others.
 */
const openElsewhere = new Set<() => void>();

/** The write group of `db` (one per connection). */
export function writeGroupOf(db: Database.Database): SqliteWriteGroup {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = createWriteGroup(db)));
  return group;
}

function createWriteGroup(db: Database.Database): SqliteWriteGroup {
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commitStatement = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  let open: OpenGroup | undefined;
  let between: (() => void)[] = [];
  const commitOpen = () => commit();
  const runBetween = () => {
    const tasks = between;
    between = [];
    for (const task of tasks) {
      try {
        task();
      } catch {
        // A task between groups is a best effort (a checkpoint); the writes' outcome does not depend on it.
      }
    }
  };

  const commit = (group: OpenGroup | undefined = open): void => {
    if (!group || group !== open) return;
    open = undefined;
    openElsewhere.delete(commitOpen);
    let failure = group.failed;
    if (failure === undefined && !db.inTransaction) failure = new Error('the SQLite transaction of this write group was rolled back');
    if (failure === undefined) {
      try {
        commitStatement.run();
      } catch (error) {
        failure = error;
      }
    }
    if (failure !== undefined && db.inTransaction) rollback.run();
    if (between.length > 0 && !db.inTransaction) runBetween();
    for (const settle of group.settles) {
      if (failure === undefined) settle.resolve();
      else settle.reject(failure);
    }
  };

  /** The open group (opened if none is); undefined inside a transaction that is not a group's (a migration, the retention job). */
  const join = (): OpenGroup | undefined => {
    if (open && db.inTransaction) return open;
    // SQLite rolled back the group's transaction after a failure: its writes fail now, and a new group starts.
    if (open) commit(open);
    if (db.inTransaction) return undefined;
    for (const other of openElsewhere) other();
    begin.run();
    const group: OpenGroup = { settles: [] };
    open = group;
    openElsewhere.add(commitOpen);
    setImmediate(() => commit(group));
    return group;
  };

  const run = <T>(group: OpenGroup | undefined, write: () => T): T => {
    try {
      return write();
    } catch (error) {
      // Most failures undo only the failed statement; some make SQLite roll back everything the group held.
      if (group && !db.inTransaction && group.failed === undefined) group.failed = error;
      throw error;
    }
  };

  return {
    write<T>(write: () => T): Promise<T> {
      let group: OpenGroup | undefined;
      let result: T;
      try {
        group = join();
        result = run(group, write);
      } catch (error) {
        return Promise.reject(error);
      }
      if (!group) return Promise.resolve(result);
      const joined = group;
      return new Promise<T>((resolve, reject) => joined.settles.push({ resolve: () => resolve(result), reject }));
    },
    writeAhead<T>(write: () => T): T {
      return run(join(), write);
    },
    committed(): Promise<void> {
      const group = open;
      if (!group) return Promise.resolve();
      return new Promise<void>((resolve, reject) => group.settles.push({ resolve, reject }));
    },
    commit: () => commit(),
    betweenGroups(task) {
      between.push(task);
      if (!db.inTransaction) runBetween();
    },
  };
}
