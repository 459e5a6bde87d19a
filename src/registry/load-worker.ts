/**
 * Parses and builds a registry text in a worker thread first, with a time
 * and a memory limit, so a file that would take the process minutes or
 * gigabytes (however it gets there: aliases, a pathological YAML scalar, a
 * schema that takes long to compile) never runs on the event loop: the
 * worker is stopped at the limit and the load refused with an issue naming
 * why. Only a text the worker loaded cleanly is loaded again on the main
 * thread, where the snapshot is needed (it holds compiled validators and
 * patterns, which cannot cross threads).
 *
 * The worker loads the same code as the process: the built JavaScript beside
 * this file, or, when the process runs the TypeScript sources (a development
 * checkout), those sources through tsx. It is kept for the next load; one that
 * ran out of time or memory is replaced.
 */
import { Worker } from 'node:worker_threads';
import type { ConfigIssue } from './types.js';

/** Outcome of a trial load in the worker. */
export type TrialLoad = { ok: true } | { ok: false; issues: ConfigIssue[] };

/** Runs trial loads off the event loop. */
export interface RegistryLoadWorker {
  /** Loads `text` in the worker; never throws. */
  check(text: string, file: string, env: Readonly<Record<string, string | undefined>>): Promise<TrialLoad>;
  /** Starts the worker now (it compiles the loader once), so the first reload does not wait for it. */
  warm(): void;
  close(): Promise<void>;
}

export interface RegistryLoadWorkerOptions {
  /** Longest a trial load may take. Default 10000 ms. */
  timeoutMs?: number;
  /** Heap a trial load may use. Default 512 MB. */
  maxHeapMb?: number;
}

/** The worker's code: register tsx when loading sources, then answer each message with a trial load. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.typescript) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  const { loadRegistryText } = await import(workerData.loader);
  parentPort.on('message', ({ id, text, file, env }) => {
    try {
      const result = loadRegistryText(text, file, { env });
      parentPort.postMessage(result.ok ? { id, ok: true } : { id, ok: false, issues: result.issues });
    } catch (error) {
      parentPort.postMessage({ id, ok: false, issues: [{ file, line: 1, col: 1, pointer: '', message: 'registry could not be loaded: ' + (error && error.message) }] });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ failed: String(error && error.stack || error) }));
`;

/** Starts the trial loader (the worker itself starts on first use). */
export function createRegistryLoadWorker(options: RegistryLoadWorkerOptions = {}): RegistryLoadWorker {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxHeapMb = options.maxHeapMb ?? 512;
  // This module's own extension says whether the process runs the build (.js) or the sources (.ts).
  const typescript = import.meta.url.endsWith('.ts');
  const loader = new URL(typescript ? './load-registry.ts' : './load-registry.js', import.meta.url).href;
  let worker: { thread: Worker; ready: Promise<void> } | undefined;
  let nextId = 0;

  const start = () => {
    const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { loader, typescript }, resourceLimits: { maxOldGenerationSizeMb: maxHeapMb }, stdout: false, stderr: false });
    thread.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: { ready?: boolean; failed?: string }) => {
        if (message.ready) resolve();
        else if (message.failed) reject(new Error(message.failed));
        else return;
        thread.off('message', onMessage);
      };
      thread.on('message', onMessage);
      thread.once('error', reject);
      thread.once('exit', (code) => reject(new Error(`the registry load worker exited (${code})`)));
    });
    ready.catch(() => undefined);
    return { thread, ready };
  };

  const stop = async (): Promise<void> => {
    const current = worker;
    worker = undefined;
    await current?.thread.terminate().catch(() => undefined);
  };

  return {
    async check(text, file, env) {
      const issue = (message: string): TrialLoad => ({ ok: false, issues: [{ file, line: 1, col: 1, pointer: '', message }] });
      worker ??= start();
      const { thread, ready } = worker;
      const id = ++nextId;
      let timer: NodeJS.Timeout | undefined;
      let detach = () => {};
      try {
        return await new Promise<TrialLoad>((resolve, reject) => {
          // The time limit covers the worker's start too: the first load also pays for compiling the loader.
          timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
          const onMessage = (message: { id?: number; ok?: boolean; issues?: ConfigIssue[] }) => {
            if (message.id === id) resolve(message.ok ? { ok: true } : { ok: false, issues: message.issues ?? [] });
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
          ready.then(() => thread.postMessage({ id, text, file, env: { ...env } }), reject);
        });
      } catch (error) {
        await stop();
        const reason = (error as Error).message;
        if (reason === 'timeout') return issue(`registry took longer than ${timeoutMs} ms to parse and build; refused (make the file smaller or simpler)`);
        if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') return issue(`registry needs more than ${maxHeapMb} MB to parse and build; refused`);
        return issue(`registry could not be loaded: ${reason}`);
      } finally {
        clearTimeout(timer);
        detach();
      }
    },
    warm() {
      worker ??= start();
    },
    close: stop,
  };
}
