/**
 * The trace id of the request being handled, carried through every async step
 * of its turn (graph nodes, sub-agent calls, model calls, storage) without
 * threading it through each function: the HTTP layer runs the request inside
 * `run`, and the logger adds `current()` to every line it writes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Where the current trace id lives. One per process, made at start and injected. */
export interface TraceContext {
  run<T>(traceId: string, work: () => T): T;
  /** The trace id of the work in progress, if any. */
  current(): string | undefined;
}

/** Creates a trace context backed by AsyncLocalStorage. */
export function createTraceContext(): TraceContext {
  const storage = new AsyncLocalStorage<string>();
  return {
    run: (traceId, work) => storage.run(traceId, work),
    current: () => storage.getStore(),
  };
}
