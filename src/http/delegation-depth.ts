/**
 * Delegation depth (seed 004, docs/api.md#sub-agent-wire-protocol). A sub-agent that calls back
 * into Switchboard passes on the `x-switchboard-depth` header it received;
 * a call at or past `supervisor.max_delegation_depth` is refused here, before
 * the body is read and before any stream opens, so agents that call each
 * other can never loop.
 */
import type { RequestHandler, Response } from 'express';
import { UserError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { Registry } from '../registry/index.js';

/** The header every sub-agent request carries and every incoming call may carry. */
export const DEPTH_HEADER = 'x-switchboard-depth';

/** Checks the incoming depth; stores it for the chat handler (0 = a call from a user). */
export function createDelegationDepthGuard(registry: Registry, metrics: Metrics): RequestHandler {
  return (request, response, next) => {
    const raw = request.headers[DEPTH_HEADER];
    let depth = 0;
    if (raw !== undefined) {
      const text = Array.isArray(raw) ? raw.join(',') : raw;
      if (!/^\d{1,6}$/.test(text.trim())) {
        throw new UserError('BAD_REQUEST', `${DEPTH_HEADER} must be a non-negative integer`, { field: DEPTH_HEADER });
      }
      depth = Number(text.trim());
    }
    const limit = registry.current().supervisor.maxDelegationDepth;
    if (depth >= limit) {
      metrics.guardStops.inc({ guard: 'delegation_depth' });
      throw new UserError('DELEGATION_DEPTH_EXCEEDED', `delegation depth ${depth} reached the limit of ${limit}; this call is not run`, { depth, max_depth: limit });
    }
    response.locals.delegationDepth = depth;
    next();
  };
}

/** The depth the guard stored for this request (0 when it did not run). */
export function delegationDepthOf(response: Response): number {
  const value: unknown = response.locals.delegationDepth;
  return typeof value === 'number' ? value : 0;
}
