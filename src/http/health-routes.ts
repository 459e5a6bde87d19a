/**
 * Probes and metrics: `GET /healthz` (the process answers) and `GET /readyz`
 * (the registry is loaded and the server says it is ready), open even when
 * API keys are configured, and `GET /metrics` (Prometheus text), which needs
 * a key when keys are on because its labels name agents and routes.
 */
import { Router, type RequestHandler } from 'express';
import type { Metrics } from '../metrics.js';
import type { Registry } from '../registry/index.js';
import { methodNotAllowed, notReadyAnswer } from './error-handler.js';

function registryLoaded(registry: Registry): boolean {
  try {
    return Boolean(registry.current());
  } catch {
    return false;
  }
}

/** Builds the router with `/healthz`, `/readyz` and `/metrics`. */
export function createHealthRouter(options: { registry: Registry; metrics: Metrics; isReady: () => boolean; metricsAuth?: RequestHandler }): Router {
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
