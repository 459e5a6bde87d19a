/**
 * Parses and builds a registry text in a worker thread first, with a time
 * and a memory limit, so a file that would take the process minutes or
 * gigabytes (however it gets there: aliases, a pathological YAML scalar, a
 * schema that takes long to compile) never runs on the event loop: the
 * worker is stopped at the limit and the load refused with an issue naming
 * why. A good trial load hands its parsed data (checked against the file's
 * schema) back as a structured clone, so the main thread never parses the
 * text again: it only builds the snapshot, whose compiled validators and
 * patterns cannot cross threads.
 *
 * The worker loads the same code as the process: the built JavaScript beside
 * this file, or, when the process runs the TypeScript sources (a development
 * checkout), those sources through tsx.
 *
 * One worker serves every registry of the process (trial loads take turns on
 * it) and is started on demand: it ends after `idleMs` without a load, so an
 * idle server holds no thread for it. Its start (tsx and the loader compiled
 * once) has its own limit; a load's time limit counts from when its text
 * reached a ready worker. A worker that ran out of time or memory is ended;
 * the next load starts a fresh one.
 */
import { Worker } from 'node:worker_threads';
import type { ConfigIssue } from './types.js';

/** Outcome of a trial load in the worker: on success the parsed data (a structured clone) and the load's warnings. */
export type TrialLoad = { ok: true; data: unknown; warnings: ConfigIssue[] } | { ok: false; issues: ConfigIssue[] };

/** Runs trial loads off the event loop. */
export interface RegistryLoadWorker {
  /** Loads `text` in the worker; never throws. */
  check(text: string, file: string, env: Readonly<Record<string, string | undefined>>): Promise<TrialLoad>;
  /** Starts the worker now (it compiles the loader once), so the next reload does not wait for it. */
  warm(): void;
  /** This user is done with the worker; it ends once idle. */
  close(): Promise<void>;
}

export interface RegistryLoadWorkerOptions {
  /** Longest a trial load may take. Default 10000 ms. */
  timeoutMs?: number;
  /** Heap a trial load may use. Default 512 MB. */
  maxHeapMb?: number;
  /** The shared worker ends after this long without a load. Default 30000 ms. */
  idleMs?: number;
}

/** Longest the worker may take to start (tsx registered, the loader compiled). */
const START_TIMEOUT_MS = 60_000;

/** The worker's code: register tsx when loading sources, then answer each message with a trial load and the data it parsed. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.typescript) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  const { loadRegistryTextKeepingData } = await import(workerData.loader);
  const { yamlParseCount } = await import(workerData.yaml);
  parentPort.on('message', ({ id, text, file, env }) => {
    const before = yamlParseCount();
    try {
      const { result, data } = loadRegistryTextKeepingData(text, file, { env });
      // A good load hands its parsed data over (the built snapshot holds compiled validators: it cannot be cloned).
      const message = result.ok ? { id, ok: true, data, warnings: result.warnings } : { id, ok: false, issues: result.issues };
      message.parses = yamlParseCount() - before;
      parentPort.postMessage(message);
    } catch (error) {
      parentPort.postMessage({ id, ok: false, parses: yamlParseCount() - before, issues: [{ file, line: 1, col: 1, pointer: '', message: 'registry could not be loaded: ' + (error && error.message) }] });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ failed: String(error && error.stack || error) }));
`;

interface SharedWorker {
  thread: Worker;
  ready: Promise<void>;
    idleTimer?: NodeJS.Timeout;
  /** Parses the worker made, over its life (tests: one per reload). */
  parses: number;
}

const shared = new Map<number, SharedWorker>();
/** Message ids, unique across every user of a shared worker. */
let nextId = 0;
/** Trial loads take turns (per heap limit): a worker ended at one load's limit must not take another's load with it. */
const queues = new Map<number, Promise<unknown>>();
/** Loads posted or waiting, over every user; the idle countdown runs only at 0. */
let waiting = 0;
const stats = { parses: 0, starts: 0 };

/**
 * The process's trial-load workers, for tests and benches: threads running
 * now (none while idle), threads started so far, and the YAML parses trial
 * loads made in them (with `yamlParseCount()`, the process's total).
 */
export function loadWorkerStats(): { running: number; starts: number; parses: number } {
  return { running: shared.size, starts: stats.starts, parses: stats.parses };
}

function startWorker(maxHeapMb: number): SharedWorker {
  // This module's own extension says whether the process runs the build (.js) or the sources (.ts).
  const typescript = import.meta.url.endsWith('.ts');
  const extension = typescript ? '.ts' : '.js';
  const loader = new URL(`./load-registry${extension}`, import.meta.url).href;
  const yaml = new URL(`./yaml-source${extension}`, import.meta.url).href;
  const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { loader, yaml, typescript }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb }, stdout: false, stderr: false });
  thread.unref();
  stats.starts += 1;
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('start timeout')), START_TIMEOUT_MS);
    timer.unref();
    const onMessage = (message: { ready?: boolean; failed?: string }) => {
      if (message.ready) resolve();
      else if (message.failed) reject(new Error(message.failed));
      else return;
      clearTimeout(timer);
      thread.off('message', onMessage);
    };
    thread.on('message', onMessage);
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the registry load worker exited (${code})`)));
  });
  ready.catch(() => undefined);
  const worker: SharedWorker = { thread, ready, parses: 0 };
  thread.once('exit', () => {
    if (shared.get(maxHeapMb) === worker) shared.delete(maxHeapMb);
  });
  return worker;
}

function workerFor(maxHeapMb: number): SharedWorker {
  let worker = shared.get(maxHeapMb);
  if (!worker) {
    worker = startWorker(maxHeapMb);
    shared.set(maxHeapMb, worker);
  }
  return worker;
}

async function endWorker(maxHeapMb: number, worker: SharedWorker): Promise<void> {
  clearTimeout(worker.idleTimer);
  if (shared.get(maxHeapMb) === worker) shared.delete(maxHeapMb);
  await worker.thread.terminate().catch(() => undefined);
}

/** Posts one load to a ready worker and waits for its answer, at most `timeoutMs` from the post. */
async function runLoad(worker: SharedWorker, text: string, file: string, env: Readonly<Record<string, string | undefined>>, timeoutMs: number, id: number): Promise<TrialLoad> {
  await worker.ready;
  const { thread } = worker;
  let timer: NodeJS.Timeout | undefined;
  let detach = () => {};
  try {
    return await new Promise<TrialLoad>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      const onMessage = (message: { id?: number; ok?: boolean; issues?: ConfigIssue[]; data?: unknown; warnings?: ConfigIssue[]; parses?: number }) => {
        if (message.id !== id) return;
        worker.parses += message.parses ?? 0;
        stats.parses += message.parses ?? 0;
        resolve(message.ok ? { ok: true, data: message.data, warnings: message.warnings ?? [] } : { ok: false, issues: message.issues ?? [] });
      };
      const onExit = () => reject(new Error('the registry load worker stopped'));
      thread.on('message', onMessage);
      thread.on('error', reject);
      thread.on('exit', onExit);
      detach = () => {
        thread.off('message', onMessage);
        thread.off('error', reject);
        thread.off('exit', onExit);
      };
      thread.postMessage({ id, text, file, env: { ...env } });
    });
  } finally {
    clearTimeout(timer);
    detach();
  }
}

/** A user of the process's trial-load worker. */
export function createRegistryLoadWorker(options: RegistryLoadWorkerOptions = {}): RegistryLoadWorker {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxHeapMb = options.maxHeapMb ?? 512;
  const idleMs = options.idleMs ?? 30_000;
  let closed = false;

  const scheduleIdleEnd = (worker: SharedWorker) => {
    clearTimeout(worker.idleTimer);
    worker.idleTimer = setTimeout(() => void endWorker(maxHeapMb, worker), idleMs);
    worker.idleTimer.unref();
  };

  return {
    async check(text, file, env) {
      const issue = (message: string): TrialLoad => ({ ok: false, issues: [{ file, line: 1, col: 1, pointer: '', message }] });
      const id = ++nextId;
      waiting += 1;
      clearTimeout(shared.get(maxHeapMb)?.idleTimer);
      // Loads take turns; each takes the worker there is when its turn comes (a fresh one after a refused load).
      const turn = (queues.get(maxHeapMb) ?? Promise.resolve()).then(async () => {
        const worker = workerFor(maxHeapMb);
        clearTimeout(worker.idleTimer);
        try {
          return await runLoad(worker, text, file, env, timeoutMs, id);
        } catch (error) {
          await endWorker(maxHeapMb, worker);
          throw error;
        }
      });
      queues.set(maxHeapMb, turn.catch(() => undefined));
      try {
        return await turn;
      } catch (error) {
        const reason = (error as Error).message;
        if (reason === 'timeout') return issue(`registry took longer than ${timeoutMs} ms to parse and build; refused (make the file smaller or simpler)`);
        if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') return issue(`registry needs more than ${maxHeapMb} MB to parse and build; refused`);
        return issue(`registry could not be loaded: ${reason}`);
      } finally {
        waiting -= 1;
        const worker = shared.get(maxHeapMb);
        if (worker && waiting === 0) scheduleIdleEnd(worker);
      }
    },
    warm() {
      if (closed) return;
      const worker = workerFor(maxHeapMb);
      scheduleIdleEnd(worker);
    },
    async close() {
      closed = true;
    },
  };
}
