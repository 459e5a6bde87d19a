/**
 * Real spans through `@opentelemetry/api`, with the parent passed explicitly:
 * no global context manager or provider is registered, so nothing else in the
 * process changes. Imported only when OpenTelemetry is on (`start-otel.ts`)
 * or by a test handing in its own provider's tracer.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Tracer } from '@opentelemetry/api';
import type { SpanContextRef } from '../trace-context.js';
import type { OpenSpan, SpanAttributes, SpanRole, SpanTracer } from './span-tracer.js';

const KINDS: Record<SpanRole, SpanKind> = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER };

function cleanAttributes(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const clean: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(attributes ?? {})) if (value !== undefined) clean[name] = value;
  return clean;
}

/** Real spans through an OpenTelemetry tracer (from a started SDK, or a test's in-memory provider). */
export function createOtelSpanTracer(tracer: Tracer): SpanTracer {
  return {
    recording: true,
    startSpan(name, options) {
      const parentContext = options.parent
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: options.parent.traceId,
            spanId: options.parent.spanId,
            traceFlags: options.parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
          })
        : ROOT_CONTEXT;
      const span = tracer.startSpan(name, { kind: KINDS[options.role ?? 'internal'], attributes: cleanAttributes(options.attributes) }, parentContext);
      const ids = span.spanContext();
      const context: SpanContextRef = { traceId: ids.traceId, spanId: ids.spanId, sampled: (ids.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED };
      let ended = false;
      return {
        context,
        setAttributes: (attributes) => span.setAttributes(cleanAttributes(attributes)),
        end(failure) {
          if (ended) return;
          ended = true;
          if (failure !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
          span.end();
        },
      };
    },
  };
}
