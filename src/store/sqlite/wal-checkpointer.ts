/**
 * WAL checkpoints off the event loop. With SQLite's own rule (a checkpoint
 * once the WAL holds 1000 pages) the checkpoint runs inside the commit that
 * crossed the line, on the serving connection, so on the event loop: up to
 * 41 ms at 20 sessions (decision 0055). Here the serving connection never
 * checkpoints (`wal_autocheckpoint = 0`); a worker thread with a connection of
 * its own to the same file does, every `intervalMs`:
 *
 * - PASSIVE: copies what no reader still needs into the database file without
 *   taking any lock a commit waits for. A commit on the serving connection
 *   that finds every frame copied starts the WAL over from its beginning, so
 *   the file is reused, not grown.
 * - TRUNCATE once the WAL did not change over one interval and is all copied
 *   (the file is idle): empties the WAL file on disk.
 * - When commits follow each other so closely that the WAL never starts over
 *   (a commit starts it over only if, when it began, every frame had been
 *   copied), the worker says so once the WAL holds more than `maxFrames`
 *   frames; the serving connection then copies the frames written since the
 *   worker's last pass itself (PASSIVE, between two write groups, while
 *   the worker waits for it: it waits for no lock), and its next commit
 *   starts the WAL over. So the WAL stays
 *   bounded, and the loop only copies a remainder, in that case alone.
 *
 * A checkpoint only copies committed pages and is itself crash-safe (what was
 * not copied is still in the WAL, read back at the next open), so a crash at
 * any point loses nothing committed. Should the worker fail to start or stop
 * for any reason, the serving connection checkpoints again as SQLite does by
 * default.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { writeGroupOf } from './sqlite-write-group.js';

/** SQLite's default: a checkpoint once the WAL holds this many pages. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

export interface WalCheckpointerOptions {
  /** Time between two checkpoints. Default 100 ms. */
  intervalMs?: number;
  /** Frames in the WAL past which the serving connection copies the remainder itself. Default 4000 (about 16 MB). */
  maxFrames?: number;
}

/** The checkpointing worker of one connection. */
export interface WalCheckpointer {
  /** Settles once the worker has opened its connection (or failed to: the serving connection then checkpoints itself). */
  readonly ready: Promise<void>;
  /** Whether the worker checkpoints now (false before it is ready, after a failure and after `stop`). */
  readonly running: boolean;
  /** Stops the worker and waits for it to close its connection; the serving connection checkpoints itself again. */
  stop(): Promise<void>;
}

/** The worker's code (plain JavaScript: it needs nothing of ours, only the SQLite driver). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 1000');
const checkpoint = (mode) => db.pragma('wal_checkpoint(' + mode + ')')[0];
let lastFrames = -1;
let waiting = false;
const tick = () => {
  if (waiting) return;
  let result = checkpoint('PASSIVE');
  if (result.log > workerData.maxFrames) {
    // The serving connection copies the rest; this connection stays out of its way until it did.
    waiting = true;
    parentPort.postMessage({ behind: result.log });
  }
  else if (result.log > 0 && result.log === lastFrames && result.checkpointed === result.log) result = checkpoint('TRUNCATE');
  lastFrames = result.log;
};
const timer = setInterval(() => {
  try {
    tick();
  } catch (error) {
    clearInterval(timer);
    parentPort.postMessage({ failed: String((error && error.message) || error) });
    db.close();
    process.exit(1);
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'caught-up') waiting = false;
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage({ ready: true });
`;

/**
 * Starts checkpointing the WAL of `db` (a file opened in WAL mode at `path`) in a worker thread, and turns
 * the connection's own checkpoints off. The worker does not keep the process alive.
 */
export function startWalCheckpointer(db: Database.Database, path: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  db.pragma('wal_autocheckpoint = 0');
  let running = false;
  let stopping = false;
  const checkpointHere = () => {
    running = false;
    if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
  };
  // The worker's copies do not catch up with the commits: the serving connection copies the rest once, right after
  // the open group's commit (a PASSIVE checkpoint waits for no lock, and the worker waits for it to be done).
  let catchingUp = false;
  const catchUp = () => {
    if (catchingUp) return;
    catchingUp = true;
    writeGroupOf(db).betweenGroups(() => {
      catchingUp = false;
      try {
        if (running && db.open) db.pragma('wal_checkpoint(PASSIVE)');
      } finally {
        if (running) thread.postMessage('caught-up');
      }
    });
  };
  // No tsx loader in the worker (it would cost its start-up for nothing): the code above is plain JavaScript.
  const thread = new Worker(WORKER_SOURCE, {
    eval: true,
    execArgv: [],
    workerData: { driver, path, intervalMs: options.intervalMs ?? 100, maxFrames: options.maxFrames ?? 4000 },
    stdout: false,
    stderr: false,
  });
  thread.unref();
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve) => {
    thread.on('message', (message: { ready?: boolean; failed?: string; behind?: number }) => {
      if (message.behind !== undefined) return catchUp();
      if (message.ready && !stopping) running = true;
      if (message.failed) checkpointHere();
      resolve();
    });
    thread.once('error', () => {
      checkpointHere();
      resolve();
    });
    void exited.then(() => {
      if (!stopping) checkpointHere();
      resolve();
    });
  });
  return {
    ready,
    get running() {
      return running;
    },
    async stop() {
      if (stopping) return exited;
      stopping = true;
      running = false;
      // Waited for: the process stays up until the worker has closed its connection.
      thread.ref();
      thread.postMessage('stop');
      await exited;
      checkpointHere();
    },
  };
}
