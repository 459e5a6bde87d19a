/**
 * The A2A routes (docs/api.md#routes): `GET /.well-known/agent-card.json`
 * (the SDK's `agentCardHandler`, the card built from the live registry on each
 * request, so a hot reload shows at once) and `POST /a2a` (the SDK's
 * `jsonRpcHandler` over a `DefaultRequestHandler`, v0.3 method names through
 * `legacyCompat`), behind the API keys and the delegation-depth guard.
 * Tasks are kept per API-key tenant (the SDK's store scopes them by the caller),
 * in storage when the app has one (src/http/a2a-task-store.ts).
 */
import { AgentCard as AgentCardJson } from '@a2a-js/sdk';
import { DefaultExecutionEventBusManager, DefaultRequestHandler, InMemoryTaskStore, type ServerCallContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { Router, type Request, type RequestHandler } from 'express';
import type { TurnFeed, TurnIdempotency, TurnRunner } from '../turn/index.js';
import type { Logger } from '../logger.js';
import type { Registry } from '../registry/index.js';
import { A2aCaller, a2aCallerOf, createA2aExecutor, switchboardAgentCard } from './a2a-agent.js';
import { methodNotAllowed } from './error-handler.js';
import { createJsonRpcBody } from './a2a-json-rpc-body.js';
import { ReplicaEventBusManager, StoredA2aTasks } from './a2a-task-store.js';
import { a2aTaskOwner, DEFAULT_TENANT, type A2aTaskRows } from '../store/index.js';

/** The header a client names its A2A protocol version in (spec §3.6; read case-insensitively). */
const A2A_VERSION_HEADER = 'a2a-version';

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
  /** Admission into the process's turns (`supervisor.max_concurrent_turns`), run before the body is read. */
  admit?: RequestHandler;
  /** The delegation-depth guard shared with `/v1/chat`. */
  depthGuard: RequestHandler;
  /** Body timeout and the like, run before the body is read. */
  bodyParsers?: readonly RequestHandler[];
  /** Where tasks are kept (shared by replicas); absent = in this process only. */
  a2aTasks?: A2aTaskRows;
  /** The rate limit of `/v1/chat`, run once the body is read (absent = none). */
  rateLimit?: RequestHandler;
  /** Largest accepted body (default 64 KiB). */
  bodyLimitBytes?: number;
}

/** The base url a caller reached us on (for the card's interface url). */
export function requestBaseUrl(request: Request): string {
  return `${request.protocol}://${request.get('host') ?? 'localhost'}`;
}

/**
 * Whether a card request asks for the v0.3 card: only an `A2A-Version` header
 * naming a 0.x version at or above 0.3 does (CONTRACT §3 "A2A, v4 readings");
 * no header, an empty one or 1.x get the v1.0 card.
 */
export function wantsLegacyCard(header: string | undefined): boolean {
  const match = /^\s*0\.(\d+)(?:\.\d+)?\s*$/.exec(header ?? '');
  return match !== null && Number(match[1]) >= 3;
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

/** Logs each JSON-RPC call at debug level: its method and the task it names (which replica served what). */
function logCall(logger: Logger): RequestHandler {
  return (request, _response, next) => {
    const body = request.body as { method?: unknown; params?: { id?: unknown; message?: { taskId?: unknown } } };
    const taskId = body.params?.id ?? body.params?.message?.taskId;
    logger.debug({ method: body.method, ...(typeof taskId === 'string' && taskId !== '' ? { taskId } : {}) }, 'a2a call');
    next();
  };
}

/** Builds the router holding both A2A routes. */
export function createA2aRouter(options: A2aRouteOptions): Router {
  const ownerOf = (context: ServerCallContext): string => (a2aTaskOwner(context.user instanceof A2aCaller ? context.user.tenant : DEFAULT_TENANT));
  const executor = createA2aExecutor({ turns: options.turns, feed: options.feed, idempotency: options.idempotency, logger: options.logger, maxQueryChars: options.maxQueryChars });
  // The handler reads only the card's capabilities and interfaces (fixed); skills are served fresh by the card route.
  // Tasks in storage when there is one (every replica serves them), else in this process.
  const taskStore = options.a2aTasks ? new StoredA2aTasks(options.a2aTasks, ownerOf) : new InMemoryTaskStore(ownerOf);
  const requestHandler = new DefaultRequestHandler(
    switchboardAgentCard(options.registry.current(), 'http://localhost', options.keysOn),
    taskStore,
    executor,
    options.a2aTasks ? new ReplicaEventBusManager(ownerOf, taskStore) : new DefaultExecutionEventBusManager(ownerOf),
  );

  const rpc = jsonRpcHandler({ requestHandler, userBuilder: async (request) => a2aCallerOf(request, options.keysOn), legacyCompat: { enabled: true } });
  const router = Router();
  router
    .route('/.well-known/agent-card.json')
    .get((request, response, next) => {
      const card = switchboardAgentCard(options.registry.current(), requestBaseUrl(request), options.keysOn);
      response.append('vary', A2A_VERSION_HEADER);
      if (wantsLegacyCard(request.get(A2A_VERSION_HEADER))) {
        // The SDK's v0.3 translation of the same card.
        atRoot(agentCardHandler({ agentCardProvider: async () => card, cache: { maxAge: 0 }, legacyCompat: { enabled: true } }))(request, response, next);
        return;
      }
      // The v1.0 card in its JSON form (camelCase, oneof fields by name, empty fields left out).
      response.setHeader('cache-control', 'no-cache');
      response.status(200).json(AgentCardJson.toJSON(card));
    })
    .all(methodNotAllowed(['GET']));
  router
    .route('/a2a')
    .post(options.authenticate, ...(options.admit ? [options.admit] : []), options.depthGuard, ...(options.bodyParsers ?? []), ...createJsonRpcBody(options.bodyLimitBytes ?? 64 * 1024), logCall(options.logger), ...(options.rateLimit ? [options.rateLimit] : []), atRoot(rpc))
    .all(methodNotAllowed(['POST']));
  return router;
}
