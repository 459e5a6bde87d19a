/**
 * The trace id of the request being handled, carried through every async step
 * of its turn (graph nodes, sub-agent calls, model calls, storage) without
 * threading it through each function: the HTTP layer runs the request inside
 * `run`, and the logger adds `current()` to every line it writes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';

/** Where the current trace id lives. One per process, made at start and injected. */
export interface TraceContext {
  run<T>(traceId: string, work: () => T): T;
  /** The trace id of the work in progress, if any. */
  current(): string | undefined;
}

/** Creates a trace context (a {@link CarriedSlot} of its own). */
export function createTraceContext(): TraceContext {
  const slot = createCarriedSlot<string>();
  return { run: slot.run, current: slot.get };
}

/**
 * A value carried through every async step of the work that set it, as an
 * AsyncLocalStorage of its own would carry it: `run` makes `value` current
 * for `work` and all it starts, `get` reads the innermost value this slot
 * set (never another slot's).
 */
export interface CarriedSlot<T> {
  run<R>(value: T, work: () => R): R;
  get(): T | undefined;
}

/** What the work in progress carries: the innermost value set, the slot that set it, and what was carried around it. */
interface Carried {
  readonly slot: object;
  readonly value: unknown;
  readonly outer: Carried | undefined;
}

/**
 * The process's one AsyncLocalStorage, shared by every slot (the request's
 * trace id, the turn's span). On Node 20, while any is in use, each promise
 * made runs a hook that copies every instance's store onto it, a property
 * per instance: two instances cost every promise of a turn twice.
 */
const carried = new AsyncLocalStorage<Carried>();

/** A new slot in the process's one AsyncLocalStorage. */
export function createCarriedSlot<T>(): CarriedSlot<T> {
  const slot = {};
  return {
    run: (value, work) => carried.run({ slot, value, outer: carried.getStore() }, work),
    get: () => {
      for (let node = carried.getStore(); node; node = node.outer) if (node.slot === slot) return node.value as T;
      return undefined;
    },
  };
}

/**
 * W3C Trace Context (docs/api.md#streams-and-trace-context): the parts of a
 * `traceparent` header. A caller's header is continued (the turn's trace id is
 * its trace id) and every sub-agent and model request carries a child.
 */
export interface SpanContextRef {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  readonly sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** Reads a `traceparent` header; undefined when absent or not valid W3C (version ff, zero ids, or a v00 header with extra fields). */
export function parseTraceparent(value: unknown): SpanContextRef | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string') return undefined;
  const match = TRACEPARENT.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** `00-<trace id>-<span id>-<flags>`. */
export function formatTraceparent(span: SpanContextRef): string {
  return `00-${span.traceId}-${span.spanId}-${span.sampled ? '01' : '00'}`;
}

/**
 * The W3C trace id that goes with a Switchboard trace id: the id itself when
 * it is already 32 hex digits, a UUID without its dashes, else a digest of it
 * (the same text always gives the same id, so every request of a turn agrees).
 */
export function w3cTraceId(traceId: string): string {
  const compact = traceId.toLowerCase().replaceAll('-', '');
  if (/^[0-9a-f]{32}$/.test(compact) && compact !== ZERO_TRACE) return compact;
  return createHash('sha256').update(traceId).digest('hex').slice(0, 32);
}

/** Random bytes for span ids, drawn from the system in blocks (one call per 512 ids, not one per id). */
const spanIdPool = { bytes: Buffer.alloc(0), offset: 0 };

/** A fresh span id (16 hex digits, never all zero). */
export function newSpanId(): string {
  if (spanIdPool.offset + 8 > spanIdPool.bytes.length) {
    spanIdPool.bytes = randomBytes(4096);
    spanIdPool.offset = 0;
  }
  const id = spanIdPool.bytes.toString('hex', spanIdPool.offset, (spanIdPool.offset += 8));
  return id === ZERO_SPAN ? newSpanId() : id;
}

/**
 * The trace headers of an outgoing request (sub-agent or model): the
 * Switchboard `x-trace-id`, and the `traceparent` of the span that makes the
 * call (its child on the other side continues the turn's trace). The one place
 * these headers are built.
 */
export function outgoingTraceHeaders(traceId: string, span: SpanContextRef | undefined): Record<string, string> {
  return span ? { 'x-trace-id': traceId, traceparent: formatTraceparent(span) } : { 'x-trace-id': traceId };
}
