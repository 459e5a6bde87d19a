/**
 * Prometheus instruments. Each call to `createMetrics` builds its own
 * prom-client registry (never the global one), so a test or a second server in
 * one process gets a clean, independent set. The server creates one at start
 * and hands it to every component that records something.
 */
import {
  Counter,
  Gauge,
  Histogram,
  Registry as PrometheusRegistry,
  collectDefaultMetrics,
} from 'prom-client';

/** The named instruments the rest of the code records into. */
export interface Metrics {
  /** Holds every instrument below; `GET /metrics` renders it. */
  readonly registry: PrometheusRegistry;
  /** HTTP requests answered, by matched route pattern, method and status code. */
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  /**
   * Finished turns by outcome: `completed`, `partial` (some sub-tasks failed),
   * `failed` (every sub-task failed), `unresolved` (the verify step found the
   * results insufficient), `input_required`, `escalated`, `aborted`,
   * `cancelled`, `error`.
   */
  readonly turns: Counter<'outcome'>;
  /** Wall time of a whole turn, in seconds. */
  readonly turnDuration: Histogram<string>;
  /** Remote sub-agent calls by agent id and outcome (`completed`, `failed`, `timeout`, ...). */
  readonly agentCalls: Counter<'agent' | 'outcome'>;
  /** Wall time of one remote sub-agent call including retries, in seconds. */
  readonly agentCallDuration: Histogram<'agent'>;
  /** Model calls by purpose (`intent`, `plan`, `summarize`...), model name, tier and outcome. */
  readonly llmCalls: Counter<'purpose' | 'model' | 'tier' | 'outcome'>;
  /** Model tokens by model name and kind (`prompt`, `completion`). */
  readonly llmTokens: Counter<'model' | 'kind'>;
  /** Tokens of the turns' model calls as the endpoint reported them, by kind (`prompt`, `completion`) and model (counted at each turn's end). */
  readonly modelTokens: Counter<'kind' | 'model'>;
  /** Wall time of each graph stage (node) of a turn, in seconds. */
  readonly stageDuration: Histogram<'stage'>;
  /**
   * Cache lookups that found an entry, by cache (`answer`: a whole answer of a
   * hot question; `response`: a sub-agent reply; `intent`: a model intent result).
   */
  readonly cacheHits: Counter<'cache'>;
  /** Cache lookups that found nothing, by cache (as `cacheHits`). */
  readonly cacheMisses: Counter<'cache'>;
  /** 1 for the live registry version (content hash), by version. */
  readonly registryVersion: Gauge<'version'>;
  /** Passive health per agent from recent calls: 1 ok, 0 failing, -1 not called yet. */
  readonly agentHealth: Gauge<'agent'>;
  /** Registry reload attempts by outcome (`applied`, `rejected`, `unchanged`). */
  readonly registryReloads: Counter<'outcome'>;
  /** Times the offline matcher decided instead of the model, by reason. */
  readonly intentFallbacks: Counter<'reason'>;
  /** Chat responses currently open (SSE streams and JSON turns waiting for `done`). */
  readonly activeStreams: Gauge<string>;
  /**
   * Requests refused or turns cut short by a guard rail, by guard
   * (`delegation_depth`, `rate_limit`, `budget_subtasks`, `budget_llm_tokens`,
   * `budget_turn_ms`, `events_per_turn`, `agent_stream_bytes`).
   */
  readonly guardStops: Counter<'guard'>;
  /** Turns refused before they started, by reason (`overloaded`: `supervisor.max_concurrent_turns` reached). */
  readonly turnsRejected: Counter<'reason'>;
  /** Turns admitted and not yet at the end of their stream. */
  readonly turnsInFlight: Gauge<string>;
  /** Sub-agent progress events not relayed to the client, by the cap that dropped them (`events_per_turn`, `agent_stream_bytes`). */
  readonly agentStreamDropped: Counter<'cap'>;
  /** Each agent's circuit breaker, read at each scrape: 0 closed, 1 half-open, 2 open. */
  readonly agentBreakerState: Gauge<'agent'>;
  /** Circuit breaker changes of state, by agent and the state entered (`open`, `half_open`, `closed`). */
  readonly agentBreakerTransitions: Counter<'agent' | 'to'>;
  /** Calls waiting for one of an agent's connections (`endpoint.max_connections`) right now. */
  readonly agentPoolWaiting: Gauge<'agent'>;
  /** How long calls waited for one of an agent's connections (only calls that had to wait), in seconds. */
  readonly agentPoolWaitSeconds: Histogram<'agent'>;
  /** Requests to the embeddings endpoint by outcome (`ok`, `error`). */
  readonly embeddingsCalls: Counter<'outcome'>;
  /** Latency of the embeddings endpoint's requests. */
  readonly embeddingsDuration: Histogram<string>;
  /**
   * Times a turn went without the query's vector (routing, pre-selection and the answer cache stayed
   * lexical), by reason: the endpoint failed (`error`, `circuit_open`), or the registry's cards had no vectors
   * yet (`not_ready`).
   */
  readonly embeddingsFallbacks: Counter<'reason'>;
  /** Names where `registryVersion`, `agentHealth` and `agentBreakerState` read their values at each scrape. */
  observeLive(source: () => LiveState): void;
}

/** What the scrape-time gauges show: the live registry version and each agent's health. */
export interface LiveState {
  version: string;
  agents: readonly { id: string; status: 'unknown' | 'ok' | 'failing'; breaker?: 'closed' | 'open' | 'half_open' }[];
}

const BREAKER_GAUGE_VALUES = { closed: 0, half_open: 1, open: 2 } as const;

export interface CreateMetricsOptions {
  /** Also collect the standard process metrics (CPU, memory, event loop). Default true. */
  defaultMetrics?: boolean;
}

const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60];

/** Shows every outcome from the start (at 0), so a rate or an alert on one has a series before it first happens. */
function zeroed(counter: Counter<'outcome'>, outcomes: readonly string[]): Counter<'outcome'> {
  for (const outcome of outcomes) counter.inc({ outcome }, 0);
  return counter;
}

/** Builds a fresh registry with every Switchboard instrument registered in it. */
export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const registry = new PrometheusRegistry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let live: (() => LiveState) | undefined;

  return {
    registry,
    httpRequests: new Counter({
      name: 'switchboard_http_requests_total',
      help: 'HTTP requests answered, by route, method and status code.',
      labelNames: ['route', 'method', 'status'],
      registers,
    }),
    turns: new Counter({
      name: 'switchboard_turns_total',
      help: 'Finished chat turns by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
    turnDuration: new Histogram({
      name: 'switchboard_turn_duration_seconds',
      help: 'Wall time of a chat turn in seconds.',
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    agentCalls: new Counter({
      name: 'switchboard_agent_calls_total',
      help: 'Remote sub-agent calls by agent id and outcome.',
      labelNames: ['agent', 'outcome'],
      registers,
    }),
    agentCallDuration: new Histogram({
      name: 'switchboard_agent_call_duration_seconds',
      help: 'Wall time of a remote sub-agent call in seconds, retries included.',
      labelNames: ['agent'],
      buckets: SECONDS_BUCKETS,
      registers,
    }),
    llmCalls: new Counter({
      name: 'switchboard_llm_calls_total',
      help: 'Model calls by purpose, model, tier and outcome.',
      labelNames: ['purpose', 'model', 'tier', 'outcome'],
      registers,
    }),
    llmTokens: new Counter({
      name: 'switchboard_llm_tokens_total',
      help: 'Model tokens used, by model and kind.',
      labelNames: ['model', 'kind'],
      registers,
    }),
    modelTokens: new Counter({
      name: 'switchboard_model_tokens_total',
      help: 'Tokens of the turns\' model calls as the endpoint reported them, by kind (prompt, completion) and model.',
      labelNames: ['kind', 'model'],
      registers,
    }),
    stageDuration: new Histogram({
      name: 'switchboard_stage_duration_seconds',
      help: 'Wall time of each stage (graph node) of a turn in seconds.',
      labelNames: ['stage'],
      buckets: [0.001, 0.005, 0.01, 0.05, ...SECONDS_BUCKETS],
      registers,
    }),
    cacheHits: new Counter({
      name: 'switchboard_cache_hits_total',
      help: 'Cache lookups that found an entry, by cache (answer, response, intent).',
      labelNames: ['cache'],
      registers,
    }),
    cacheMisses: new Counter({
      name: 'switchboard_cache_misses_total',
      help: 'Cache lookups that found nothing, by cache (answer, response, intent).',
      labelNames: ['cache'],
      registers,
    }),
    registryVersion: new Gauge({
      name: 'switchboard_registry_version_info',
      help: 'The live registry version (content hash) as a label; value 1.',
      labelNames: ['version'],
      registers,
      collect() {
        if (!live) return;
        this.reset();
        this.set({ version: live().version }, 1);
      },
    }),
    agentHealth: new Gauge({
      name: 'switchboard_agent_health',
      help: 'Passive health per agent from recent calls: 1 ok, 0 failing, -1 not called yet.',
      labelNames: ['agent'],
      registers,
      collect() {
        if (!live) return;
        this.reset();
        for (const agent of live().agents) this.set({ agent: agent.id }, agent.status === 'ok' ? 1 : agent.status === 'failing' ? 0 : -1);
      },
    }),
    agentBreakerState: new Gauge({
      name: 'switchboard_agent_breaker_state',
      help: 'Circuit breaker of each agent: 0 closed, 1 half-open (one trial call), 2 open (not called).',
      labelNames: ['agent'],
      registers,
      collect() {
        if (!live) return;
        this.reset();
        for (const agent of live().agents) this.set({ agent: agent.id }, BREAKER_GAUGE_VALUES[agent.breaker ?? 'closed']);
      },
    }),
    agentBreakerTransitions: new Counter({
      name: 'switchboard_agent_breaker_transitions_total',
      help: 'Circuit breaker changes of state, by agent and the state entered.',
      labelNames: ['agent', 'to'],
      registers,
    }),
    agentPoolWaiting: new Gauge({
      name: 'switchboard_agent_pool_waiting',
      help: 'Calls waiting for one of an agent\'s connections (endpoint.max_connections) right now.',
      labelNames: ['agent'],
      registers,
    }),
    agentPoolWaitSeconds: new Histogram({
      name: 'switchboard_agent_pool_wait_seconds',
      help: 'Time calls waited for one of an agent\'s connections (calls that had to wait), in seconds; a wait that ran out failed the call with reason busy.',
      labelNames: ['agent'],
      // Above 2 s: a wait runs out at up to 2 s (busy) and lands just past it, not only in +Inf.
      buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 2.5, 5],
      registers,
    }),
    registryReloads: zeroed(
      new Counter({
        name: 'switchboard_registry_reloads_total',
        help: 'Registry reload attempts by outcome (applied, rejected: the last good version stays, unchanged).',
        labelNames: ['outcome'],
        registers,
      }),
      ['applied', 'rejected', 'unchanged'],
    ),
    intentFallbacks: new Counter({
      name: 'switchboard_intent_fallbacks_total',
      help: 'Turns where the offline matcher decided the intent, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    activeStreams: new Gauge({
      name: 'switchboard_active_streams',
      help: 'Chat responses currently open.',
      registers,
    }),
    guardStops: new Counter({
      name: 'switchboard_guard_stops_total',
      help: 'Requests refused or turns cut short by a guard rail (delegation depth, rate limit, budgets, stream caps), by guard.',
      labelNames: ['guard'],
      registers,
    }),
    turnsRejected: new Counter({
      name: 'switchboard_turns_rejected_total',
      help: 'Turns refused at admission before any work, by reason (overloaded: supervisor.max_concurrent_turns reached).',
      labelNames: ['reason'],
      registers,
    }),
    turnsInFlight: new Gauge({
      name: 'switchboard_turns_in_flight',
      help: 'Turns admitted and not yet at the end of their stream (against supervisor.max_concurrent_turns).',
      registers,
    }),
    agentStreamDropped: new Counter({
      name: 'switchboard_agent_stream_dropped_total',
      help: 'Sub-agent progress events not relayed to the client because a per-turn cap was reached, by cap.',
      labelNames: ['cap'],
      registers,
    }),
    embeddingsCalls: new Counter({
      name: 'switchboard_embeddings_calls_total',
      help: 'Requests to the embeddings endpoint by outcome (cache hits are counted in switchboard_cache_hits_total{cache="embeddings"}).',
      labelNames: ['outcome'],
      registers,
    }),
    embeddingsDuration: new Histogram({
      name: 'switchboard_embeddings_duration_seconds',
      help: 'Latency of the embeddings endpoint requests.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    embeddingsFallbacks: new Counter({
      name: 'switchboard_embeddings_fallbacks_total',
      help: 'Times a turn went without the query vector (routing, pre-selection and the answer cache stayed lexical), by reason (error, circuit_open, not_ready).',
      labelNames: ['reason'],
      registers,
    }),
    observeLive(source) {
      live = source;
    },
  };
}
