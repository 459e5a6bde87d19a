/**
 * Spans of a turn, behind one small interface with two implementations:
 *
 * - `createIdTracer()` (the default, OpenTelemetry off) only draws span ids,
 *   so outgoing requests still carry a child `traceparent`; nothing is
 *   recorded, nothing of OpenTelemetry is loaded.
 * - `createOtelSpanTracer(tracer)` (`otel-span-tracer.ts`, imported only
 *   when OpenTelemetry is on) makes real spans through `@opentelemetry/api`.
 */
import { newSpanId, w3cTraceId, type SpanContextRef } from '../trace-context.js';

/** Attribute values a span takes. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** What a span does on the remote side of a call: `client` for an outgoing request. */
export type SpanRole = 'internal' | 'client' | 'server';

/** A started span. */
export interface OpenSpan {
  /** Its ids: the `traceparent` a request made under it carries. */
  readonly context: SpanContextRef;
  setAttributes(attributes: SpanAttributes): void;
  /** Ends it; `failure` marks it as an error with that text. Later calls do nothing. */
  end(failure?: string): void;
}

/** Starts spans. */
export interface SpanTracer {
  /** False when spans only carry ids (nothing is recorded or exported). */
  readonly recording: boolean;
  /** A span under `parent`, or a new trace's root (whose trace id derives from `rootTraceId`) when there is none. */
  startSpan(name: string, options: { parent?: SpanContextRef; rootTraceId?: string; attributes?: SpanAttributes; role?: SpanRole }): OpenSpan;
}

/** Ids only: what runs when OpenTelemetry is off. */
export function createIdTracer(): SpanTracer {
  return {
    recording: false,
    startSpan(_name, options) {
      const traceId = options.parent?.traceId ?? w3cTraceId(options.rootTraceId ?? newSpanId() + newSpanId());
      const context: SpanContextRef = { traceId, spanId: newSpanId(), sampled: options.parent?.sampled ?? true };
      return { context, setAttributes() {}, end() {} };
    },
  };
}
