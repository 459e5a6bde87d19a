/**
 * Every request gets a trace id: the trace id of the caller's W3C
 * `traceparent` when it sent a valid one (the turn continues that trace), else
 * its `x-trace-id` (or `x-request-id`) when it looks like an id, else a fresh
 * UUID. It is echoed as `x-trace-id`, logged with every error and passed to
 * the supervisor and sub-agents.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { isValidId } from '../id-patterns.js';
import { parseTraceparent, type SpanContextRef, type TraceContext } from '../trace-context.js';

/** Picks the caller's trace id when it is sane, else generates one. */
export function pickTraceId(headerValues: readonly (string | string[] | undefined)[]): string {
  for (const value of headerValues) {
    const candidate = Array.isArray(value) ? value[0] : value;
    if (typeof candidate === 'string' && isValidId('trace_id', candidate.trim())) return candidate.trim();
  }
  return randomUUID();
}

/**
 * Middleware: stores the trace id in `response.locals.traceId`, echoes it, and
 * runs the rest of the request inside the trace context (so log lines of the
 * turn carry it).
 */
export function createTraceIdMiddleware(traceContext?: TraceContext): RequestHandler {
  return (request, response, next) => {
    const traceParent = parseTraceparent(request.headers.traceparent);
    const traceId = traceParent?.traceId ?? pickTraceId([request.headers['x-trace-id'], request.headers['x-request-id']]);
    response.locals.traceId = traceId;
    if (traceParent) response.locals.traceParent = traceParent;
    response.setHeader('x-trace-id', traceId);
    if (traceContext) traceContext.run(traceId, next);
    else next();
  };
}

/** The trace id of a request handled after the trace middleware. */
export function requireTraceId(response: Response): string {
  const value: unknown = response.locals.traceId;
  return typeof value === 'string' ? value : randomUUID();
}

/** The caller's W3C `traceparent` (parsed), when it sent a valid one. */
export function traceParentOf(response: Response): SpanContextRef | undefined {
  return response.locals.traceParent as SpanContextRef | undefined;
}
