/**
 * OpenTelemetry, only when asked for: with `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, the SDK and the OTLP/HTTP (JSON)
 * trace exporter are imported and started, and turns, stages, sub-agent and
 * model calls become exported spans. Unset, none of it is imported: turns
 * only draw span ids for the `traceparent` they pass on.
 */
import { createTurnTracing, type TurnTracing } from './turn-tracing.js';

/** Tracing for the process, and how to flush and stop it. */
export interface StartedTelemetry {
  tracing: TurnTracing;
  /** True when spans are exported. */
  exporting: boolean;
  /** Sends what is buffered now (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Where spans go: the traces endpoint itself, or the base endpoint + `/v1/traces` (as the OTLP spec reads the two variables). */
export function otlpTracesUrl(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/** Starts the SDK and exporter when the environment names an endpoint; otherwise ids-only tracing and nothing loaded. */
export async function startTelemetry(env: Readonly<Record<string, string | undefined>>, service: { version: string }): Promise<StartedTelemetry> {
  const url = otlpTracesUrl(env);
  if (!url || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') {
    return { tracing: createTurnTracing(), exporting: false, flush: async () => {}, shutdown: async () => {} };
  }
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, { createOtelSpanTracer }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('./otel-span-tracer.js'),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'switchboard', 'service.version': service.version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  return {
    tracing: createTurnTracing(createOtelSpanTracer(provider.getTracer('switchboard', service.version))),
    exporting: true,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
