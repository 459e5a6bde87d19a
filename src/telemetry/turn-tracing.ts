/**
 * The spans of a turn (docs/api.md#streams-and-trace-context): one per turn, a child
 * per stage (`graph/traced-turns.ts` reads them off the turn's own events),
 * and a child per sub-agent call and per model call. The turn's span is the
 * current one for everything its work starts (a slot of the process's one
 * AsyncLocalStorage, `trace-context.ts`), so the sub-agent client and the
 * model gateway find their parent without it being threaded through the graph.
 */
import { createCarriedSlot, type SpanContextRef } from '../trace-context.js';
import { createIdTracer, type OpenSpan, type SpanAttributes, type SpanRole, type SpanTracer } from './span-tracer.js';

/** The turn whose work is running. */
export interface CurrentTurnTrace {
  /** The Switchboard trace id (`x-trace-id`). */
  readonly traceId: string;
  readonly span: OpenSpan;
}

export interface TurnTracing {
  readonly tracer: SpanTracer;
  /** Runs `work` with a new turn span (under the caller's `traceparent` when there is one) current. */
  runTurn<T>(turn: { traceId: string; parent?: SpanContextRef; attributes?: SpanAttributes }, work: (span: OpenSpan) => T): T;
  /** A child of the current turn's span; a root of its own trace outside a turn when `traceId` is given, else undefined. */
  startChild(name: string, options: { attributes?: SpanAttributes; role?: SpanRole; traceId?: string }): OpenSpan | undefined;
  /** The turn whose work is running, if any. */
  current(): CurrentTurnTrace | undefined;
}

/** Turn tracing over `tracer` (default: ids only, OpenTelemetry off). */
export function createTurnTracing(tracer: SpanTracer = createIdTracer()): TurnTracing {
  const current = createCarriedSlot<CurrentTurnTrace>();
  return {
    tracer,
    runTurn(turn, work) {
      const span = tracer.startSpan('switchboard.turn', { parent: turn.parent, rootTraceId: turn.traceId, attributes: turn.attributes, role: 'server' });
      return current.run({ traceId: turn.traceId, span }, () => work(span));
    },
    startChild(name, options) {
      const turn = current.get();
      if (!turn && options.traceId === undefined) return undefined;
      return tracer.startSpan(name, { parent: turn?.span.context, rootTraceId: options.traceId, attributes: options.attributes, role: options.role });
    },
    current: current.get,
  };
}
