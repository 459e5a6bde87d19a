/**
 * The composition root: builds every part once at start and wires them
 * together (registry, storage, model gateway, agent client, graph, turn
 * runner, HTTP app). Nothing else creates long-lived objects.
 */
import { createEmbeddingsFromEnv, type SemanticIndex } from './embeddings/index.js';
import type { Express } from 'express';
import { createAgentBreakers, createAgentClient, createAgentHealthTracker, createEndpointFetch } from './agents/index.js';
import { createTicketWebhook, type TicketWebhookOptions } from './escalation/index.js';
import { type AnswerComposer, buildSupervisorGraph, createAnswerCache, createLlmAnswers, createLlmVerifier, createOfflineAnswers, createOfflineVerifier, createResponseCache, type Verifier } from './graph/index.js';
import { createLlmPlanner, createOfflinePlanner, type Planner } from './planning/index.js';
import { createTurnFeed, createTurnIdempotency, createTurnStartWindow, createTurnRunner, recordCacheLookup, recordModelTokens, recordTurnMetrics, startTurnSweeper, traceTurns, type BudgetName, type StreamCaps, type TurnRunner } from './turn/index.js';
import { createApp, createStreamTracker, type StreamTracker } from './http/index.js';
import { type CardPreselector, createCardPreselector, createExampleRanker, createIntentCache, createLlmRecognizer, createOfflineRecognizer, type IntentRecognizer } from './intent/index.js';
import { type LlmGateway, summariseUsage, withTurnBudget } from './llm/index.js';
import type { Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import type { TraceContext } from './trace-context.js';
import { createTurnTracing, type TurnTracing } from './telemetry/index.js';
import { createA2aCardFetcher, createRegistry, type Registry, type RegistrySnapshot, toPublicCard } from './registry/index.js';
import { createMemoryKeyValueStore, openStorage, startRetentionJob, type Storage } from './store/index.js';
import { createDataSealer, createPiiMasking, loadOrCreateDataKey, maskStorage, type PiiMasking } from './privacy/index.js';

export interface SwitchboardOptions {
  /** Registry file path. */
  configPath: string;
  /** `sqlite:<path>` (default `sqlite:./data/switchboard.db`) or `postgres://...`. */
  databaseUrl?: string;
  /** `redis://...`: leases, signals and caches shared through Redis (Postgres storage only). */
  redisUrl?: string;
  /** Names this process as a lease holder (logs); default a random id. */
  replicaId?: string;
  /** Session lease time to live (how soon a dead replica's session is free). Default 15000 ms. */
  leaseTtlMs?: number;
  /** Prefix of every Redis key (default `switchboard:`). */
  redisPrefix?: string;
  /** Called once per Postgres statement (benchmarks count round trips). */
  onStorageQuery?: (durationMs: number) => void;
  logger: Logger;
  /** The masking the logger uses too, so both follow the registry's pii_patterns. Default: a new one. */
  masking?: PiiMasking;
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Secret that seals the personal values of parked tasks at rest; every
   * replica of a deployment needs the same one. Default: `SWITCHBOARD_DATA_KEY`
   * from `env`, else a key drawn once and kept in the storage backend (shared
   * by every replica and restart on the same database, but stored with the data).
   */
  dataKey?: string;
  /** Model gateway; absent or disabled = offline matcher. */
  llm?: LlmGateway;
  apiKeys?: readonly string[];
  /** Keys of `apiKeys` that may read turn records and the console (`SWITCHBOARD_ADMIN_KEYS`). */
  adminKeys?: readonly string[];
  chatPage?: string;
  /** HTML served at `GET /console`; absent means `GET /console` is a 404. */
  consolePage?: string;
  /** The trace context the logger reads (see createLogger); requests run inside it. */
  traceContext?: TraceContext;
  /** Spans of turns, sub-agent and model calls (hand the same one to the model gateway); default: ids only, for `traceparent`. */
  tracing?: TurnTracing;
  heartbeatMs?: number;
  /** A request body must arrive completely within this long (default 30000 ms). */
  bodyTimeoutMs?: number;
  /** Watch the registry file for changes (default true). */
  watch?: boolean;
  /** Fetching of `a2a_card` Agent Cards: timeout and how long a good card is reused (default 5 s, 60 s). */
  a2aCards?: { timeoutMs?: number; ttlMs?: number };
  now?: () => Date;
  /** Retry timing of escalation-card deliveries (tests shorten it). */
  ticketWebhook?: Omit<TicketWebhookOptions, 'logger'>;
  /** Caps on sub-agent progress relayed per turn (default: 200 events per turn, 64 KiB per agent). */
  streamCaps?: Partial<StreamCaps>;
}

export interface Switchboard {
  app: Express;
  registry: Registry;
  storage: Storage;
  turns: TurnRunner;
  metrics: Metrics;
  /** The app's open chat streams: hand it to `startServer` so shutdown ends them. */
  streams: StreamTracker;
  close(): Promise<void>;
}

/** The strategies of a turn, chosen once at start. */
export interface Strategies {
  recognizer: IntentRecognizer;
  planner: Planner;
  answers: AnswerComposer;
  /** Which capability cards the intent prompt shows (LLM mode; `switchboard eval` measures its recall). */
  preselector: CardPreselector;
  /** Judges the results of a business turn (the verify step). */
  verifier: Verifier;
  /** Trains what a new registry snapshot needs (the offline recogniser's example model) before it goes live. */
  prepare(snapshot: RegistrySnapshot): void;
}

/**
 * Chooses the intent / planning / answer strategies: offline when no enabled
 * model gateway is configured; otherwise the LLM ones, each falling back to
 * its offline counterpart. `switchboard eval` builds its strategies here too.
 * Model intent results are cached in process (their keys and values hold the
 * user's words, which never go to a shared store unmasked).
 */
export function chooseStrategies(llm: LlmGateway | undefined, logger: Logger, metrics: Metrics, semantic?: SemanticIndex): Strategies {
  // One example ranker, so the recogniser, the pre-selector and the LLM planner's clause finder share one trained model per snapshot.
  const ranker = createExampleRanker();
  const preselector = createCardPreselector({ ranker });
  const prepare = (snapshot: RegistrySnapshot) => {
    ranker.prepare(snapshot);
    // Cards are embedded in the background; until they are, routing is lexical (a failure is logged by the client).
    if (semantic) void semantic.prepare(snapshot);
  };
  const offline = {
    recognizer: createOfflineRecognizer({ ranker, ...(semantic ? { semantic } : {}) }),
    planner: createOfflinePlanner(),
    answers: createOfflineAnswers(),
    preselector,
    verifier: createOfflineVerifier(),
    prepare,
  };
  if (!llm || !llm.enabled) return offline;
  // Every model call of a turn respects the turn's token and time budgets.
  const gateway = withTurnBudget(llm);
  return {
    recognizer: createLlmRecognizer({
      gateway,
      fallback: offline.recognizer,
      cache: createIntentCache({
        store: createMemoryKeyValueStore({ maxEntries: 1000 }),
        onLookup: (hit) => recordCacheLookup(metrics, 'intent', hit),
      }),
      logger,
      metrics,
      preselector,
    }),
    planner: createLlmPlanner({ fallback: offline.planner, logger }),
    answers: createLlmAnswers({ gateway, fallback: offline.answers, logger }),
    preselector,
    verifier: createLlmVerifier({ gateway, logger }),
    prepare,
  };
}

/** The `guard` label of `switchboard_guard_stops_total` for each per-turn budget. */
const BUDGET_GUARDS: Record<BudgetName, string> = {
  max_subtasks: 'budget_subtasks',
  max_llm_tokens: 'budget_llm_tokens',
  max_turn_ms: 'budget_turn_ms',
};

export async function createSwitchboard(options: SwitchboardOptions): Promise<Switchboard> {
  const { logger } = options;
  const masking = options.masking ?? createPiiMasking();
  const metrics = createMetrics();
  // Optional word meaning (docs/api.md#environment): card vectors are cached in the storage backend once it is open.
  const embeddings = createEmbeddingsFromEnv(options.env ?? process.env, logger, metrics);
  const { recognizer, planner, answers, verifier, prepare } = chooseStrategies(options.llm, logger, metrics, embeddings?.index);
  const a2aCardFetcher = createA2aCardFetcher({ checkedFetch: (fetch, lookup) => createEndpointFetch({ fetch, lookup }), ...options.a2aCards });
  const registry = await createRegistry({
    path: options.configPath,
    logger,
    env: options.env,
    watch: options.watch ?? true,
    prepare,
    a2aCardFetcher,
    onReloadOutcome: (outcome) => metrics.registryReloads.inc({ outcome }),
  });
  const configuredKey = options.dataKey ?? (options.env ?? process.env).SWITCHBOARD_DATA_KEY;
  let storage: Storage;
  try {
    // Personal data is masked on every write (docs/api.md#personal-data), with the live registry's extra kinds.
    masking.use(registry.current().supervisor.piiPatterns);
    registry.onReload((next) => masking.use(next.supervisor.piiPatterns));
    const raw = await openStorage({ databaseUrl: options.databaseUrl, redisUrl: options.redisUrl, redisPrefix: options.redisPrefix, onQuery: options.onStorageQuery, logger });
    let secret = configuredKey;
    if (!secret) {
      // One key per deployment, kept in its own storage: restarts and other replicas open what this one sealed.
      secret = await loadOrCreateDataKey(raw.kv).catch(async (error: unknown) => {
        await raw.close();
        throw error;
      });
      logger.warn(
        'SWITCHBOARD_DATA_KEY is not set: the key sealing personal values of parked tasks is kept in the database; set SWITCHBOARD_DATA_KEY (the same on every replica) to keep it out of the data',
      );
    }
    storage = maskStorage(raw, masking, createDataSealer(secret));
    embeddings?.client.useStore(storage.kv);
  } catch (error) {
    // The registry watcher would keep the process alive after a failed start.
    await registry.close();
    throw error;
  }
  // Shared through Redis when there is one; otherwise each replica keeps its own (a cache may miss, never be wrong).
  const cacheStore = storage.kind.includes('redis') ? storage.kv : createMemoryKeyValueStore();
  const breakers = createAgentBreakers({ logger, onTransition: (agent, _from, to) => metrics.agentBreakerTransitions.inc({ agent, to }) });
  // A breaker belongs to an agent as registered: one that left the registry is forgotten.
  registry.onReload((snapshot) => breakers.retain(snapshot.agents));
  const tracing = options.tracing ?? createTurnTracing();
  const agentClient = createAgentClient({
    logger,
    breakers,
    tracing,
    connectionHooks: {
      onWaiting: (agent, waiting) => metrics.agentPoolWaiting.set({ agent }, waiting),
      onWaited: (agent, seconds) => metrics.agentPoolWaitSeconds.observe({ agent }, seconds),
    },
  });
  const ticketWebhook = createTicketWebhook({ logger, ...options.ticketWebhook });
  const health = createAgentHealthTracker();
  metrics.observeLive(() => {
    const snapshot = registry.current();
    return { version: snapshot.version, agents: snapshot.agents.map((card) => ({ id: card.id, status: health.of(card.id).status, breaker: breakers.state(card.id) })) };
  });
  const graph = buildSupervisorGraph({
    recognizer,
    planner,
    answers,
    verifier,
    agentClient,
    logger,
    checkpointer: storage.checkpointer,
    profiles: storage.profiles,
    responseCache: createResponseCache({ store: cacheStore, logger, now: options.now, onLookup: (hit) => recordCacheLookup(metrics, 'response', hit) }),
    // Answers of hot questions go to the storage backend's own store (SQLite, Postgres or Redis): one
    // lookup per business turn, and a replica answers what another one answered.
    answerCache: createAnswerCache({
      store: storage.kv,
      logger,
      now: options.now,
      onLookup: (hit) => recordCacheLookup(metrics, 'answer', hit),
      onParaphraseLookup: (hit) => recordCacheLookup(metrics, 'answer_paraphrase', hit),
    }),
    // The turn's message is embedded at most once, for routing, pre-selection and the answer cache.
    ...(embeddings ? { semantic: embeddings.index } : {}),
    ticketWebhook,
    onAgentCall: (agent, outcome, durationMs) => {
      health.record(agent, outcome);
      metrics.agentCalls.inc({ agent, outcome });
      metrics.agentCallDuration.observe({ agent }, durationMs / 1000);
    },
  });
  const runner = createTurnRunner({
    registry,
    graph,
    storage,
    logger,
    replicaId: options.replicaId,
    // Cheap where signals do not cost a database round trip (SQLite in-process, Redis); followers poll otherwise.
    announceEvents: storage.kind !== 'postgres',
    leaseTtlMs: options.leaseTtlMs,
    pruneCheckpoints: (threadId) => storage.pruneCheckpoints(threadId),
    now: options.now,
    summariseUsage: (usage) => ({ ...summariseUsage(usage) }),
    onTurnEnd: (outcome, durationMs, events) => recordTurnMetrics(metrics, outcome, durationMs, events),
    onModelCalls: (calls) => recordModelTokens(metrics, calls),
    onBudgetReached: (budget) => metrics.guardStops.inc({ guard: BUDGET_GUARDS[budget] }),
    streamCaps: options.streamCaps,
    onStreamDrop: (cap, first) => {
      metrics.agentStreamDropped.inc({ cap });
      if (first) metrics.guardStops.inc({ guard: cap });
    },
  });
  const turns = traceTurns(runner, tracing);
  const streams = createStreamTracker();
  const retention = startRetentionJob({ storage, retentionDays: () => registry.current().supervisor.retentionDays, logger });
  // A turn whose process was killed is closed as interrupted once its session lease has run out.
  const sweeper = startTurnSweeper({ storage, logger, leaseTtlMs: options.leaseTtlMs ?? 15000 });
  const feed = createTurnFeed({ storage, announced: storage.kind !== 'postgres' });
  const app = createApp({
    profiles: { profiles: storage.profiles, forgetUser: (userId) => storage.forgetUser(userId) },
    registry,
    streams,
    turns,
    // A session whose first turn is starting is found, not 404 (turn-start-window.ts).
    messages: createTurnStartWindow({ transcript: storage.transcript, leases: storage.leases }).reader(storage.transcript),
    feed,
    idempotency: createTurnIdempotency({ kv: storage.kv }),
    isReady: () => !turns.draining,
    publicCard: (card) => ({ ...toPublicCard(card), health: { ...health.of(card.id), breaker: breakers.state(card.id) } }),
    logger,
    metrics,
    createRateLimiter: storage.createRateLimiter,
    a2aTasks: storage.a2aTasks,
    apiKeys: options.apiKeys,
    adminKeys: options.adminKeys,
    turnRecords: storage.transcript,
    chatPage: options.chatPage,
    consolePage: options.consolePage,
    traceContext: options.traceContext,
    heartbeatMs: options.heartbeatMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
  });
  return {
    app,
    streams,
    registry,
    storage,
    turns,
    metrics,
    async close() {
      retention.stop();
      breakers.close();
      sweeper.stop();
      await ticketWebhook.close();
      await agentClient.close();
      await registry.close();
      await storage.close();
    },
  };
}
