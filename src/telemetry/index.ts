/** OpenTelemetry: the turn's tracing, its span type, and starting the exporter (the SDK loaded only when exporting). Other rooms import these names from this file only. */
export type { OpenSpan } from './span-tracer.js';
export { startTelemetry } from './start-otel.js';
export { createTurnTracing, type TurnTracing } from './turn-tracing.js';
