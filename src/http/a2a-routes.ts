/**
 * The A2A routes (docs/api.md#routes): `GET /.well-known/agent-card.json`
 * (the SDK's `agentCardHandler`, the card built from the live registry on each
 * request, so a hot reload shows at once) and `POST /a2a` (the SDK's
 * `jsonRpcHandler` over a `DefaultRequestHandler`, v0.3 method names through
 * `legacyCompat`), behind the API keys and the delegation-depth guard.
 * Tasks are kept per API-key tenant (the SDK's store scopes them by the caller).
 */
import { DefaultExecutionEventBusManager, DefaultRequestHandler, InMemoryTaskStore, type ServerCallContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { Router, type Request, type RequestHandler } from 'express';
import type { TurnFeed, TurnIdempotency, TurnRunner } from '../turn/index.js';
import type { Logger } from '../logger.js';
import type { Registry } from '../registry/types.js';
import { A2aCaller, a2aCallerOf, createA2aExecutor, switchboardAgentCard } from './a2a-agent.js';
import { methodNotAllowed } from './error-handler.js';

export interface A2aRouteOptions {
  registry: Registry;
  turns: TurnRunner;
  feed: TurnFeed;
  idempotency?: TurnIdempotency;
  logger: Logger;
  maxQueryChars: number;
  /** API keys are on (`authenticate` then requires a key). */
  keysOn: boolean;
  /** The API-key check shared with `/v1`. */
  authenticate: RequestHandler;
  /** The delegation-depth guard shared with `/v1/chat`. */
  depthGuard: RequestHandler;
  /** Body timeout and JSON parser with the app's size limit (the SDK's own parser then leaves the body alone). */
  bodyParsers?: readonly RequestHandler[];
}

/** The base url a caller reached us on (for the card's interface url). */
export function requestBaseUrl(request: Request): string {
  return `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}

/** Runs one of the SDK's express routers (they answer at their own root) for the route it is mounted on. */
function atRoot(handler: RequestHandler): RequestHandler {
  return (request, response, next) => {
    const url = request.url;
    request.url = '/';
    void handler(request, response, (error?: unknown) => {
      request.url = url;
      next(error);
    });
  };
}

/** Builds the router holding both A2A routes. */
export function createA2aRouter(options: A2aRouteOptions): Router {
  const ownerOf = (context: ServerCallContext): string => (context.user instanceof A2aCaller ? `tenant:${context.user.tenant}` : 'tenant:default');
  const executor = createA2aExecutor({ turns: options.turns, feed: options.feed, idempotency: options.idempotency, logger: options.logger, maxQueryChars: options.maxQueryChars });
  // The handler reads only the card's capabilities and interfaces (fixed); skills are served fresh by the card route.
  const requestHandler = new DefaultRequestHandler(
    switchboardAgentCard(options.registry.current(), 'http://localhost', options.keysOn),
    new InMemoryTaskStore(ownerOf),
    executor,
    new DefaultExecutionEventBusManager(ownerOf),
  );

  const rpc = jsonRpcHandler({ requestHandler, userBuilder: async (request) => a2aCallerOf(request, options.keysOn), legacyCompat: { enabled: true } });
  const router = Router();
  router
    .route('/.well-known/agent-card.json')
    .get((request, response, next) => {
      const card = switchboardAgentCard(options.registry.current(), requestBaseUrl(request), options.keysOn);
      atRoot(agentCardHandler({ agentCardProvider: async () => card, cache: { maxAge: 0 }, legacyCompat: { enabled: true } }))(request, response, next);
    })
    .all(methodNotAllowed(['GET']));
  router.route('/a2a').post(options.authenticate, options.depthGuard, ...(options.bodyParsers ?? []), atRoot(rpc)).all(methodNotAllowed(['POST']));
  return router;
}
