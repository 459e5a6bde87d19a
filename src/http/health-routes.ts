/**
 * Probes and metrics: `GET /healthz` (the process answers) and `GET /readyz`
 * (the registry is loaded and the server says it is ready; 503 `saturated`
 * while it carries `supervisor.max_concurrent_turns` turns), open even when
 * API keys are configured, and `GET /metrics` (Prometheus text), which needs
 * a key when keys are on because its labels name agents and routes.
 */
import { Router, type RequestHandler } from 'express';
import type { Metrics } from '../metrics.js';
import type { Registry } from '../registry/index.js';
import { mapError, methodNotAllowed, notReadyAnswer } from './error-handler.js';
import { UserError } from '../errors.js';
import { OVERLOADED_RETRY_AFTER_SECONDS, type TurnAdmission } from './turn-admission.js';

function registryLoaded(registry: Registry): boolean {
  try {
    return Boolean(registry.current());
  } catch {
    return false;
  }
}

/** Builds the router with `/healthz`, `/readyz` and `/metrics`. */
export function createHealthRouter(options: {
  registry: Registry;
  metrics: Metrics;
  isReady: () => boolean;
  /** When given, `/readyz` answers 503 `saturated` while the process carries its limit of turns. */
  admission?: TurnAdmission;
  metricsAuth?: RequestHandler;
}): Router {
  const router = Router();
  router
    .route('/healthz')
    .get((_request, response) => {
      response.json({ status: 'ok' });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/readyz')
    .get((_request, response) => {
      let ready = false;
      try {
        ready = options.isReady() && registryLoaded(options.registry);
      } catch {
        ready = false;
      }
      if (ready && options.admission?.saturated()) {
        // Saturated, not broken: a balancer sends the next turns elsewhere until one ends here.
        const { status, body } = mapError(new UserError('OVERLOADED', `carrying ${options.admission.inFlight} turns, the limit (supervisor.max_concurrent_turns)`));
        response.setHeader('retry-after', String(OVERLOADED_RETRY_AFTER_SECONDS));
        response.status(status).json({ status: 'saturated', turns_in_flight: options.admission.inFlight, max_concurrent_turns: options.admission.limit(), ...body });
        return;
      }
      if (ready) {
        response.json({ status: 'ready' });
        return;
      }
      response.setHeader('retry-after', '5');
      const { status, body } = notReadyAnswer();
      response.status(status).json({ status: 'not_ready', ...body });
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/metrics')
    .get(options.metricsAuth ?? ((_request, _response, next) => next()), async (_request, response) => {
      const text = await options.metrics.registry.metrics();
      response.setHeader('content-type', options.metrics.registry.contentType);
      response.send(text);
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
