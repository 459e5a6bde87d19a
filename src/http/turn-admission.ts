/**
 * Admission of turns into this process (`supervisor.max_concurrent_turns`,
 * docs/decisions/0044-admission-and-buffers.md). `/v1/chat`, `/a2a` and
 * `/v1/agui` pass through it before their body is read: while the process
 * carries its limit of turns, one more is answered at once with `503
 * OVERLOADED` and `retry-after` (the catalogue's error body, on `/a2a` too:
 * nothing of the JSON-RPC request has been read, as with a 413 or a 429), so a
 * load balancer gets a clean, early "not now" instead of a turn that queues
 * behind the event loop or a reset connection.
 *
 * A turn counts from admission to the end of its stream (the response's
 * close); a chat turn with `on_disconnect: "continue"` that outlives its client
 * keeps its place until it ends (`holdAdmission`). The count is per process:
 * each replica admits what it can carry.
 */
import type { RequestHandler, Response } from 'express';
import { UserError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { Registry } from '../registry/index.js';
import { sendError } from './error-handler.js';

/** Seconds a refused client is told to wait: a turn usually ends within that. */
export const OVERLOADED_RETRY_AFTER_SECONDS = 1;

/** The turns this process carries and the gate in front of the turn routes. */
export interface TurnAdmission {
  /** Runs first on each turn route: admits (and counts until the response closes) or answers 503 OVERLOADED. */
  readonly gate: RequestHandler;
  /** Turns admitted and not yet ended. */
  readonly inFlight: number;
  /** The limit now (`supervisor.max_concurrent_turns` of the live registry); undefined before a registry is loaded. */
  limit(): number | undefined;
  /** Whether one more turn would be refused. */
  saturated(): boolean;
}

const HOLD = Symbol('admission hold');

interface Slot {
  holds: number;
  closed: boolean;
  release(): void;
}

/**
 * Keeps the request's place in the admission count until `work` settles as
 * well as the response (a turn that runs on after its client left).
 */
export function holdAdmission(response: Response, work: Promise<unknown>): void {
  const slot = (response.locals as { [HOLD]?: Slot })[HOLD];
  if (!slot) return;
  slot.holds += 1;
  const settle = () => {
    slot.holds -= 1;
    if (slot.closed && slot.holds === 0) slot.release();
  };
  work.then(settle, settle);
}

/** Makes the process's admission, reading the limit from the live registry at each request (a reload takes effect at once). */
export function createTurnAdmission(registry: Registry, metrics: Metrics): TurnAdmission {
  let inFlight = 0;
  metrics.turnsRejected.inc({ reason: 'overloaded' }, 0);
  const limit = (): number | undefined => {
    try {
      return registry.current().supervisor.maxConcurrentTurns;
    } catch {
      return undefined;
    }
  };
  const gate: RequestHandler = (_request, response, next) => {
    const max = limit();
    if (max !== undefined && inFlight >= max) {
      metrics.turnsRejected.inc({ reason: 'overloaded' });
      sendError(
        response,
        new UserError('OVERLOADED', `the server is carrying its limit of ${max} turns at once; retry in ${OVERLOADED_RETRY_AFTER_SECONDS} s`, {
          retryAfterSeconds: OVERLOADED_RETRY_AFTER_SECONDS,
        }),
      );
      return;
    }
    inFlight += 1;
    metrics.turnsInFlight.set(inFlight);
    let released = false;
    const slot: Slot = {
      holds: 0,
      closed: false,
      release() {
        if (released) return;
        released = true;
        inFlight -= 1;
        metrics.turnsInFlight.set(inFlight);
      },
    };
    (response.locals as { [HOLD]?: Slot })[HOLD] = slot;
    response.once('close', () => {
      slot.closed = true;
      if (slot.holds === 0) slot.release();
    });
    next();
  };
  return {
    gate,
    get inFlight() {
      return inFlight;
    },
    limit,
    saturated() {
      const max = limit();
      return max !== undefined && inFlight >= max;
    },
  };
}
