/**
 * Every request gets a trace id: the caller's `x-trace-id` (or `x-request-id`)
 * when it looks like an id, else a fresh UUID. It is echoed as `x-trace-id`,
 * logged with every error and passed to the supervisor and sub-agents.
 */
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { isValidId } from '../id-patterns.js';
import type { TraceContext } from '../trace-context.js';

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
    const traceId = pickTraceId([request.headers['x-trace-id'], request.headers['x-request-id']]);
    response.locals.traceId = traceId;
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
