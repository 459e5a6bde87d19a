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
  /** Finished turns by outcome (e.g. `completed`, `input_required`, `failed`, `aborted`). */
  readonly turns: Counter<'outcome'>;
  /** Wall time of a whole turn, in seconds. */
  readonly turnDuration: Histogram<string>;
  /** Remote sub-agent calls by agent id and outcome (`completed`, `failed`, `timeout`, ...). */
  readonly agentCalls: Counter<'agent' | 'outcome'>;
  /** Wall time of one remote sub-agent call including retries, in seconds. */
  readonly agentCallDuration: Histogram<'agent'>;
  /** Model calls by purpose (`intent`, `plan`, `summarize`...), model tier and outcome. */
  readonly llmCalls: Counter<'purpose' | 'tier' | 'outcome'>;
  /** Model tokens by kind (`prompt`, `completion`). */
  readonly llmTokens: Counter<'kind'>;
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
}

export interface CreateMetricsOptions {
  /** Also collect the standard process metrics (CPU, memory, event loop). Default true. */
  defaultMetrics?: boolean;
}

const SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60];

/** Builds a fresh registry with every Switchboard instrument registered in it. */
export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const registry = new PrometheusRegistry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

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
      help: 'Model calls by purpose, model tier and outcome.',
      labelNames: ['purpose', 'tier', 'outcome'],
      registers,
    }),
    llmTokens: new Counter({
      name: 'switchboard_llm_tokens_total',
      help: 'Model tokens used, by kind.',
      labelNames: ['kind'],
      registers,
    }),
    registryReloads: new Counter({
      name: 'switchboard_registry_reloads_total',
      help: 'Registry reload attempts by outcome.',
      labelNames: ['outcome'],
      registers,
    }),
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
  };
}
