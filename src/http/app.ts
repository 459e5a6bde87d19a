/**
 * The express application of the supervisor (docs/api.md#routes). Everything arrives
 * as dependencies; this file only wires middleware and routes in order:
 * trace id → request metrics → probes (`/metrics` behind the API key when
 * keys are on: it names agents) → page → `/v1` (auth first) → 404 → the one
 * error handler.
 */
import { type A2aTaskRows, createMemoryRateLimiter, type RateLimiterFactory, type TranscriptReader, type TurnRecordReader } from '../store/index.js';
import express, { Router, type Express, type RequestHandler } from 'express';
import { UserError } from '../errors.js';
import type { TurnFeed, TurnIdempotency, TurnRunner } from '../turn/index.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { TraceContext } from '../trace-context.js';
import type { AgentCard, PublicAgentCard, Registry } from '../registry/index.js';
import { createAdminAdmission, isLoopback } from './admin-admission.js';
import { createTurnDetailHandler, createTurnListHandler } from './turns-route.js';
import { createA2aRouter } from './a2a-routes.js';
import { createAgentsHandler } from './agents-route.js';
import { createAguiHandler } from './agui-route.js';
import { createApiKeyAuth } from './auth.js';
import { createDelegationDepthGuard } from './delegation-depth.js';
import { a2aCaller, aguiCaller, chatCaller, createRateLimit } from './rate-limit.js';
import { createChatHandler } from './chat-route.js';
import { createOpenApiHandler, createResponseStateSchemaHandler } from './descriptions-route.js';
import { createBodyTimeout, createErrorHandler, createNotFoundHandler, createUrlLengthLimit, methodNotAllowed } from './error-handler.js';
import { createHealthRouter } from './health-routes.js';
import { createSessionMessagesHandler } from './sessions-route.js';
import { createSessionCancelHandler, createSessionStreamHandler } from './session-stream-route.js';
import { createProfileDeleteHandler, createProfileReadHandler, type ProfileRouteOptions } from './profile-route.js';
import type { StreamTracker } from './stream-tracker.js';
import { createTraceIdMiddleware } from './trace-id.js';
import { routeLabel } from './route-label.js';
import { createTurnAdmission } from './turn-admission.js';

/** Everything the HTTP layer needs, built once by the server at start. */
export interface AppOptions {
  registry: Registry;
  turns: TurnRunner;
  messages: TranscriptReader;
  /** Resume and cancel of turns, from any replica. */
  feed: TurnFeed;
  /** `idempotency-key` on `POST /v1/chat` (absent = the header is ignored). */
  idempotency?: TurnIdempotency;
  /** Long-term profiles (`/v1/users/:user_id/profile`); absent = the route answers 404. */
  profiles?: ProfileRouteOptions;
  /** Turns a card into what clients may see (no secrets). */
  publicCard: (card: AgentCard) => PublicAgentCard;
  logger: Logger;
  metrics: Metrics;
  /** Tasks of `POST /a2a` in storage, shared by replicas (absent = in process memory). */
  a2aTasks?: A2aTaskRows;
  /** Rate-limit counters from the storage backend (default in-process). */
  createRateLimiter?: RateLimiterFactory;
  /** Open chat streams; `startServer` is given the same tracker so shutdown can end them. */
  streams: StreamTracker;
  /** When non-empty every `/v1/*` call and `/metrics` need `authorization: Bearer <key>`; entries may be `key=tenant`. */
  apiKeys?: readonly string[];
  /** Largest accepted JSON body. Default 64 KiB. */
  bodyLimitBytes?: number;
  /** Interval of the SSE `: ping` comment. Default 15000 ms; 0 turns it off. */
  heartbeatMs?: number;
  /** Longest accepted `query`, in characters. Default 4000. */
  maxQueryChars?: number;
  /** Extra readiness condition for `/readyz` (besides a loaded registry). Default always ready. */
  isReady?: () => boolean;
  /** Carries each request's trace id into its log lines (the logger's mixin reads it). */
  traceContext?: TraceContext;
  /** HTML served at `GET /`; absent means `GET /` is a 404. */
  chatPage?: string;
  /** Finished turns' records (`GET /v1/turns`); absent = those routes answer 404. */
  turnRecords?: TurnRecordReader;
  /** Keys of `apiKeys` that may read turn records and the console (`SWITCHBOARD_ADMIN_KEYS`). */
  adminKeys?: readonly string[];
  /** HTML served at `GET /console`; absent means `GET /console` is a 404. */
  consolePage?: string;
  /** Longest accepted URL, in characters. Default 8192. */
  maxUrlChars?: number;
  /** A request body must have arrived completely within this long. Default 30000 ms. */
  bodyTimeoutMs?: number;
  /** How long shutdown waits for an aborted turn to finish its stream. Default 2000 ms. */
  shutdownGraceMs?: number;
}

/** Records `httpRequests` once per response, labelled by the route template the request addresses. */
function createRequestMetricsMiddleware(metrics: Metrics): RequestHandler {
  return (request, response, next) => {
    let recorded = false;
    const path = request.path;
    const record = () => {
      if (recorded) return;
      recorded = true;
      // From the route table, not `request.route`: express has left the router (and its `/v1` base) by the time an error is answered.
      metrics.httpRequests.inc({ route: routeLabel(path), method: request.method, status: String(response.statusCode) });
    };
    response.once('finish', record);
    response.once('close', record);
    next();
  };
}

/** Rejects a body that is absent or not JSON before the parser runs; `expected` says what the body should be. */
function requireJsonBody(expected: string): RequestHandler {
  return (request, _response, next) => {
    const length = request.headers['content-length'];
    const hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
    const matched = hasBody ? request.is(['application/json', 'application/*+json']) : null;
    if (matched === null) {
      throw new UserError('BAD_REQUEST', `body is required: ${expected}`, { field: 'body' });
    }
    if (matched === false) {
      const given = request.headers['content-type'] ?? 'none';
      throw new UserError('UNSUPPORTED_MEDIA_TYPE', `content-type must be application/json (got ${given})`);
    }
    next();
  };
}

/**
 * A body declared larger than the limit is refused before a byte of it is
 * read (the JSON parser would refuse it too, but only after draining the whole
 * declared length, which a client may never send). The connection is closed
 * after the answer, as the unread body is still on it.
 */
function refuseDeclaredOversize(limitBytes: number): RequestHandler {
  return (request, response, next) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) {
      response.setHeader('connection', 'close');
      response.once('finish', () => request.destroy());
      throw new UserError('PAYLOAD_TOO_LARGE', `body is too large: at most ${limitBytes} bytes`);
    }
    next();
  };
}

/** Builds the express app. Start it with `startServer`. */
export function createApp(options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(createTraceIdMiddleware(options.traceContext));
  app.use(createRequestMetricsMiddleware(options.metrics));
  app.use(createUrlLengthLimit(options.maxUrlChars ?? 8192));
  const auth = createApiKeyAuth(options.apiKeys ?? []);
  const admission = createTurnAdmission(options.registry, options.metrics);
  app.use(
    createHealthRouter({ registry: options.registry, metrics: options.metrics, isReady: options.isReady ?? (() => true), admission, metricsAuth: auth }),
  );

  if (options.chatPage !== undefined) {
    const page = options.chatPage;
    app
      .route('/')
      .get((_request, response) => {
        response.setHeader('cache-control', 'no-cache');
        response.type('html').send(page);
      })
      .all(methodNotAllowed(['GET']));
  }

  const keysOn = (options.apiKeys ?? []).some((key) => key.trim() !== '');
  const adminAdmission = createAdminAdmission({ apiKeys: options.apiKeys ?? [], adminKeys: options.adminKeys ?? [] });
  if (options.consolePage !== undefined) {
    const page = options.consolePage;
    app
      .route('/console')
      .get((request, response) => {
        // The page holds no data (it reads /v1 with the admin key it is given); open mode serves it to this host only.
        if (!keysOn && !isLoopback(request)) throw new UserError('FORBIDDEN', 'the console is served to loopback addresses only while no API keys are configured');
        response.setHeader('cache-control', 'no-cache');
        response.type('html').send(page);
      })
      .all(methodNotAllowed(['GET']));
  }

  app
    .route('/openapi.json')
    .get(createOpenApiHandler({ maxQueryChars: options.maxQueryChars ?? 4000, keysOn }))
    .all(methodNotAllowed(['GET']));

  const depthGuard = createDelegationDepthGuard(options.registry, options.metrics);
  const rateLimit = createRateLimit(options.registry, options.metrics, options.createRateLimiter ?? createMemoryRateLimiter);
  const jsonBody = express.json({ limit: options.bodyLimitBytes ?? 64 * 1024, type: ['application/json', 'application/*+json'], strict: true });
  app.use(
    createA2aRouter({
      registry: options.registry,
      turns: options.turns,
      feed: options.feed,
      idempotency: options.idempotency,
      logger: options.logger,
      maxQueryChars: options.maxQueryChars ?? 4000,
      keysOn,
      authenticate: auth,
      admit: admission.gate,
      depthGuard,
      bodyParsers: [refuseDeclaredOversize(options.bodyLimitBytes ?? 64 * 1024), createBodyTimeout(options.bodyTimeoutMs ?? 30_000)],
      bodyLimitBytes: options.bodyLimitBytes ?? 64 * 1024,
      a2aTasks: options.a2aTasks,
      rateLimit: rateLimit.forRoute(a2aCaller),
    }),
  );

  const v1 = Router();
  v1.route('/agui')
    .post(
      admission.gate,
      depthGuard,
      requireJsonBody('an AG-UI RunAgentInput JSON object (threadId, runId, messages, forwardedProps.user_id)'),
      refuseDeclaredOversize(options.bodyLimitBytes ?? 64 * 1024),
      createBodyTimeout(options.bodyTimeoutMs ?? 30_000),
      jsonBody,
      rateLimit.forRoute(aguiCaller),
      createAguiHandler({ turns: options.turns, logger: options.logger, tracker: options.streams, maxQueryChars: options.maxQueryChars ?? 4000, keysOn }),
    )
    .all(methodNotAllowed(['POST']));
  v1.route('/chat')
    .post(
      admission.gate,
      createDelegationDepthGuard(options.registry, options.metrics),
      requireJsonBody('a JSON object with "query" and "user_id"'),
      refuseDeclaredOversize(options.bodyLimitBytes ?? 64 * 1024),
      createBodyTimeout(options.bodyTimeoutMs ?? 30_000),
      express.json({ limit: options.bodyLimitBytes ?? 64 * 1024, type: ['application/json', 'application/*+json'], strict: true }),
      rateLimit.forRoute(chatCaller),
      createChatHandler({
        turns: options.turns,
        logger: options.logger,
        metrics: options.metrics,
        tracker: options.streams,
        heartbeatMs: options.heartbeatMs ?? 15000,
        maxQueryChars: options.maxQueryChars ?? 4000,
        shutdownGraceMs: options.shutdownGraceMs ?? 2000,
        idempotency: options.idempotency ? { keys: options.idempotency, feed: options.feed } : undefined,
      }),
    )
    .all(methodNotAllowed(['POST']));
  v1.route('/sessions/:session_id/messages')
    .get(createSessionMessagesHandler({ messages: options.messages }))
    .all(methodNotAllowed(['GET']));
  v1.route('/sessions/:session_id/stream')
    .get(createSessionStreamHandler({ messages: options.messages, feed: options.feed, heartbeatMs: options.heartbeatMs ?? 15000 }))
    .all(methodNotAllowed(['GET']));
  v1.route('/sessions/:session_id/cancel')
    .post(createSessionCancelHandler({ messages: options.messages, feed: options.feed }))
    .all(methodNotAllowed(['POST']));
  if (options.profiles) {
    v1.route('/users/:user_id/profile')
      .get(createProfileReadHandler(options.profiles))
      .delete(createProfileDeleteHandler(options.profiles))
      .all(methodNotAllowed(['GET', 'DELETE']));
  }
  v1.route('/schemas/response-state.json').get(createResponseStateSchemaHandler()).all(methodNotAllowed(['GET']));
  v1.route('/agents')
    .get(createAgentsHandler({ registry: options.registry, publicCard: options.publicCard }))
    .all(methodNotAllowed(['GET']));
  if (options.turnRecords) {
    const turns = options.turnRecords;
    v1.route('/turns').get(adminAdmission, createTurnListHandler({ turns })).all(methodNotAllowed(['GET']));
    v1.route('/turns/:turn_id').get(adminAdmission, createTurnDetailHandler({ turns })).all(methodNotAllowed(['GET']));
  }
  app.use('/v1', auth, v1);

  app.use(createNotFoundHandler());
  app.use(createErrorHandler(options.logger));
  return app;
}
