/**
 * The remote sub-agent client (docs/api.md#sub-agent-wire-protocol). One call = up to `1 + retries`
 * attempts over the card's protocol adapter. Shared here, whatever the protocol:
 * the per-attempt timeout, the caller's cancellation, which failures are worth
 * a retry (connect error, 5xx, timeout — never a 4xx, a bad body or an abort),
 * and the check of `output` against the card's `output_schema`. The retry loop
 * (backoff with jitter, cancellable while it waits) is p-retry's.
 *
 * Every failure comes back as an outcome with a code and a readable reason;
 * `call` does not throw. The reason is safe to show users (no header values,
 * addresses or ports); the full text is `detail`, for logs only.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger, type Logger } from '../logger.js';
import { outputSchemaProblem } from './reply-envelope.js';
import type { AgentCard } from '../registry/index.js';
import type { AgentCallOptions, AgentClient, AgentFailureCode, AgentOutcome, AgentReply, AgentRequestBody } from './types.js';
import type { AttemptResult, ProtocolAdapter } from './protocols/protocol-adapter.js';
import { createProtocolAdapters } from './protocols/adapter-registry.js';
import { describeTarget, redactHeaderValues } from './protocols/http-common.js';
import { publicFailureReason } from './failure-reason.js';
import pRetry from 'p-retry';
import type { LookupFunction } from 'node:net';
import { createEndpointFetch } from './endpoint-fetch.js';
import { createAgentPools, postWithFetch, type AgentPost } from './agent-transport.js';
import { connectionWaitMs, createConnectionLimits, type ConnectionLimitHooks } from './connection-limits.js';
import { createAgentBreakers, type AgentBreakers } from './circuit-breakers.js';
import { createTurnTracing, type TurnTracing } from '../telemetry/index.js';
import { outgoingTraceHeaders, type SpanContextRef } from '../trace-context.js';

/** Dependencies and limits of an agent client. */
export interface AgentClientOptions {
  /**
   * What requests go through instead of the keep-alive pools; tests may hand
   * in one that returns prepared `Response`s. Default: the HTTP protocols send
   * with `undici.request` through the client's pools (`agent-transport.ts`),
   * whose connections refuse a host name resolving to a link-local /
   * metadata / unique-local address, unless the card's registry allows
   * private endpoints; A2A uses `globalThis.fetch` behind the same check made
   * before the request (`endpoint-fetch.ts`).
   */
  fetch?: typeof globalThis.fetch;
  /** Resolves endpoint host names for that check and for the pools' connections (default `dns.lookup`). */
  lookup?: LookupFunction;
  /** Connections the pools open at once to one agent origin (default: unbounded; the per-agent `max_connections` limits calls). */
  connectionsPerOrigin?: number;
  /** Calls to an agent in flight at once when its card says nothing (default 256, as `supervisor.max_connections_per_agent`). */
  defaultMaxConnections?: number;
  /** Told how many calls wait for a connection to an agent, and how long each waited (the `/metrics` pool figures). */
  connectionHooks?: ConnectionLimitHooks;
  logger?: Logger;
  /** Largest reply body (or single event of an event stream) accepted, in bytes. */
  maxResponseBytes?: number;
  /** Largest whole event stream, progress included, in bytes. */
  maxStreamBytes?: number;
  /** First retry waits about this long; each further retry doubles it. */
  retryBaseDelayMs?: number;
  /** Extra or replacement protocol adapters, keyed by protocol name. */
  protocols?: Readonly<Record<string, ProtocolAdapter>>;
  /** The per-agent circuit breakers (default: a set of this client's own). */
  breakers?: AgentBreakers;
  /** Where a call's span comes from (a child of the running turn's); default: ids only, for the `traceparent` header. */
  tracing?: Pick<TurnTracing, 'startChild'>;
}

const FALLBACK_TIMEOUT_MS = 15_000;
/** Largest reply body (or single event of a stream) the client accepts unless told otherwise. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;
/** Largest whole event stream (progress included) the client reads unless told otherwise. */
export const DEFAULT_MAX_STREAM_BYTES = 8_000_000;
const MAX_RETRY_DELAY_MS = 5_000;
/** Header names the client sets itself; a card cannot override them. */
const RESERVED_HEADERS = new Set(['x-request-id', 'x-trace-id', 'traceparent', 'x-switchboard-depth', 'content-type', 'accept', 'content-length']);

/** Creates a client that calls sub-agents according to their cards. */
export function createAgentClient(options: AgentClientOptions = {}): AgentClient & { close(): Promise<void> } {
  const uncheckedFetch = options.fetch ?? globalThis.fetch;
  // A handed-in fetch answers by itself (prepared replies): its host names are judged only when a resolver is handed in too.
  const checkedFetch = options.fetch && !options.lookup ? options.fetch : createEndpointFetch({ fetch: uncheckedFetch, lookup: options.lookup });
  const pools = options.fetch ? undefined : createAgentPools({ lookup: options.lookup, connectionsPerOrigin: options.connectionsPerOrigin });
  const checkedPost = pools?.checked ?? postWithFetch(checkedFetch);
  const uncheckedPost = pools?.unchecked ?? postWithFetch(uncheckedFetch);
  const logger = options.logger ?? silentLogger;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxStreamBytes = Math.max(maxResponseBytes, options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES);
  const retryBaseDelayMs = options.retryBaseDelayMs ?? 100;
  const adapters = createProtocolAdapters(options.protocols);
  const breakers = options.breakers ?? createAgentBreakers({ logger });
  const tracing = options.tracing ?? createTurnTracing();
  const connectionLimits = createConnectionLimits(options.connectionHooks);
  const defaultMaxConnections = options.defaultMaxConnections ?? 256;

  /** One call under its own span (a child of the turn's), whose ids go out as `traceparent`. */
  async function call(card: AgentCard, body: AgentRequestBody, callOptions: AgentCallOptions = {}): Promise<AgentOutcome> {
    const span = tracing.startChild('switchboard.agent_call', {
      role: 'client',
      traceId: body.trace_id,
      attributes: { 'switchboard.agent_id': card.id, 'switchboard.task_id': body.task_id, 'switchboard.protocol': card.endpoint.protocol },
    });
    const outcome = await callUnderSpan(card, body, callOptions, span?.context);
    span?.setAttributes({ 'switchboard.attempts': outcome.attempts, 'switchboard.outcome': outcome.ok ? 'ok' : outcome.code });
    span?.end(outcome.ok ? undefined : outcome.code);
    return outcome;
  }

  async function callUnderSpan(card: AgentCard, body: AgentRequestBody, callOptions: AgentCallOptions, span: SpanContextRef | undefined): Promise<AgentOutcome> {
    const startedAt = performance.now();
    const { signal } = callOptions;
    const elapsed = () => Math.round(performance.now() - startedAt);
    const fail = (code: AgentFailureCode, detail: string, attempts: number): AgentOutcome => {
      // A cancelled call is the caller's decision, not a fault of the agent.
      const level = code === 'aborted' ? 'info' : 'warn';
      const logged = redactHeaderValues(detail, card.endpoint.headers);
      logger[level]({ traceId: body.trace_id, agent: card.id, task: body.task_id, code, attempts, reason: logged }, 'sub-agent call failed');
      const reason = publicFailureReason(detail, Object.values(card.endpoint.headers));
      return { ok: false, code, reason, detail: logged, attempts, durationMs: elapsed() };
    };

    const adapter = adapters[card.endpoint.protocol];
    if (!adapter) {
      const known = Object.keys(adapters).join(', ');
      return fail('unsupported_protocol', `protocol "${card.endpoint.protocol}" is not supported (known: ${known})`, 0);
    }
    if (signal?.aborted) return fail('aborted', 'the call was cancelled before it started', 0);

    const headers = buildHeaders(card.endpoint.headers, callOptions.requestId ?? randomUUID(), outgoingTraceHeaders(body.trace_id, span), callOptions.delegationDepth ?? 1);
    const timeoutMs = validTimeout(card.endpoint.timeoutMs);
    const maxAttempts = 1 + Math.max(0, Math.floor(card.endpoint.retries || 0));

    // A call holds one of the agent's connections for all its attempts; none free within a short wait: busy, not called.
    const limit = card.endpoint.maxConnections ?? defaultMaxConnections;
    const slot = await connectionLimits.acquire(card.id, limit, connectionWaitMs(timeoutMs), signal);
    if ('reason' in slot) {
      if (slot.reason === 'aborted') return fail('aborted', 'the call was cancelled while waiting for a connection', 0);
      return fail('busy', `all ${slot.limit} connections to the agent are in use (endpoint.max_connections); none came free within ${slot.waitedMs} ms`, 0);
    }

    // Every attempt reuses the same body, so the agent sees the same task_id on a retry.
    let attempts = 0;
    try {
      const reply = await pRetry(
        async (attempt) => {
          attempts = attempt;
          const allowPrivate = card.endpoint.allowPrivateAddresses === true;
          const plan: AttemptPlan = {
            url: card.endpoint.url,
            post: allowPrivate ? uncheckedPost : checkedPost,
            fetch: allowPrivate ? uncheckedFetch : checkedFetch,
            headers,
            body,
            timeoutMs,
            signal,
            onProgress: callOptions.onProgress,
          };
          const guarded = await breakers.run(card, () => runAttempt(adapter, plan), (result) => countsAgainstAgent(card, result));
          const result: AttemptResult = guarded.refused
            ? { ok: false, code: 'circuit_open', reason: 'the agent is paused after repeated failures (circuit breaker open)' }
            : guarded.result;
          if (result.ok) return result.reply;
          logger.debug({ traceId: body.trace_id, agent: card.id, task: body.task_id, attempt, code: result.code, reason: result.reason }, 'sub-agent attempt failed');
          throw new FailedAttempt(result);
        },
        {
          retries: maxAttempts - 1,
          factor: 2,
          minTimeout: retryBaseDelayMs,
          maxTimeout: MAX_RETRY_DELAY_MS,
          randomize: true,
          signal,
          shouldRetry: ({ error }) => error instanceof FailedAttempt && isRetryable(error.result),
        },
      );
      logger.debug({ traceId: body.trace_id, agent: card.id, task: body.task_id, attempts, status: reply.status }, 'sub-agent replied');
      return judgeReply(card, reply, attempts, elapsed, fail);
    } catch (error) {
      if (error instanceof FailedAttempt) {
        const suffix = attempts > 1 ? ` (after ${attempts} attempts)` : '';
        return fail(error.result.code, `${error.result.reason}${suffix}`, attempts);
      }
      if (signal?.aborted) return fail('aborted', `the call was cancelled while waiting to retry (after ${attempts} attempts)`, attempts);
      return fail('bad_body', `unexpected error while calling the agent: ${(error as Error)?.message ?? String(error)}`, attempts);
    } finally {
      slot.release();
    }
  }

  interface AttemptPlan {
    url: string;
    post: AgentPost;
    fetch: typeof globalThis.fetch;
    headers: Record<string, string>;
    body: AgentRequestBody;
    timeoutMs: number;
    signal?: AbortSignal;
    onProgress?: (content: string) => void;
  }

  async function runAttempt(adapter: ProtocolAdapter, plan: AttemptPlan): Promise<AttemptResult> {
    const timeoutController = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      timeoutController.abort(new DOMException(`no reply within ${plan.timeoutMs} ms`, 'TimeoutError'));
    }, plan.timeoutMs);
    const signal = plan.signal ? AbortSignal.any([plan.signal, timeoutController.signal]) : timeoutController.signal;
    let result: AttemptResult;
    try {
      result = await adapter.invoke({
        post: plan.post,
        fetch: plan.fetch,
        url: plan.url,
        headers: plan.headers,
        body: plan.body,
        signal,
        maxResponseBytes,
        maxStreamBytes,
        onProgress: plan.onProgress,
      });
    } catch (error) {
      result = { ok: false, code: 'bad_body', reason: `unexpected error while calling the agent: ${(error as Error)?.message ?? String(error)}` };
    } finally {
      clearTimeout(timer);
    }
    if (result.ok) return result;
    if (plan.signal?.aborted) return { ok: false, code: 'aborted', reason: 'the call was cancelled by the caller' };
    if (timedOut) {
      return { ok: false, code: 'timeout', reason: `no complete reply from ${describeTarget(plan.url)} within ${plan.timeoutMs} ms` };
    }
    return result;
  }

  return {
    call,
    async close() {
      await pools?.close();
    },
  };
}

/** Turns a well-formed reply into the outcome: agent failures and output checks. */
function judgeReply(
  card: AgentCard,
  reply: AgentReply,
  attempts: number,
  elapsed: () => number,
  fail: (code: AgentFailureCode, reason: string, attempts: number) => AgentOutcome,
): AgentOutcome {
  if (reply.status === 'failed') {
    return fail('agent_failed', reply.message?.trim() || 'the agent reported a failure without a message', attempts);
  }
  const outputProblem = outputSchemaProblem(reply, card.validateOutput);
  if (outputProblem) return fail('output_schema', outputProblem, attempts);
  return { ok: true, reply, attempts, durationMs: elapsed() };
}

/** A failed attempt, thrown so the retry loop can decide on it. */
class FailedAttempt extends Error {
  constructor(readonly result: Extract<AttemptResult, { ok: false }>) {
    super(result.reason);
    this.name = 'FailedAttempt';
  }
}

/**
 * Whether an attempt's result says the agent is unwell (its breaker counts it):
 * no reply in time, no connection, a 5xx, or a reply that breaks the protocol
 * or its output schema. A cancelled call, a refused request (4xx), an agent's
 * own `failed` answer and `input_required` say nothing against it.
 */
function countsAgainstAgent(card: AgentCard, result: AttemptResult): boolean {
  if (result.ok) return outputSchemaProblem(result.reply, card.validateOutput) !== undefined;
  switch (result.code) {
    case 'timeout':
    case 'connect_error':
    case 'bad_body':
    case 'too_large':
    case 'stream_incomplete':
      return true;
    case 'http_status':
      return (result.httpStatus ?? 0) >= 500;
    default:
      return false;
  }
}

function isRetryable(result: Extract<AttemptResult, { ok: false }>): boolean {
  if (result.code === 'connect_error' || result.code === 'timeout') return true;
  return result.code === 'http_status' && (result.httpStatus ?? 0) >= 500;
}

function buildHeaders(cardHeaders: Readonly<Record<string, string>>, requestId: string, traceHeaders: Record<string, string>, depth: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(cardHeaders)) {
    if (!RESERVED_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  headers['x-request-id'] = requestId;
  Object.assign(headers, traceHeaders);
  headers['x-switchboard-depth'] = String(depth);
  return headers;
}

function validTimeout(timeoutMs: number): number {
  return Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : FALLBACK_TIMEOUT_MS;
}

