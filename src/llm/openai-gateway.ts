/**
 * The model gateway: every model call of the supervisor goes through here, to
 * any OpenAI-compatible endpoint, with one policy for all of them.
 *
 * - One HTTP request is an attempt. The `openai` client's own retries are off
 *   (`maxRetries: 0`) so that retries are ours, counted and logged.
 * - Each attempt has a timeout: the whole request when not streaming; when
 *   streaming, the gap before the first chunk and between chunks (a long
 *   answer that keeps flowing is not cut off).
 * - Attempts run through an opossum circuit breaker per gateway: once enough
 *   attempts failed in the window, calls reject at once with
 *   `LlmCallError('circuit_open')` and the callers fall back to the offline
 *   path instead of waiting on a dead endpoint. Caller aborts and request
 *   refusals (4xx) do not count as endpoint failures.
 * - A streamed call is not retried once a token reached the caller, because
 *   the caller has already shown it.
 * - Structured output steps down json_schema → json_object → prompt when the
 *   endpoint rejects a mode; the step is remembered for the gateway's life.
 */
import { OpenAI } from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { Logger } from '../logger.js';
import { checkGatewayOptions, describeInvalidCall } from './call-validation.js';
import { CallerAbortedError, createEndpointBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import { LlmCallError, type LlmFailureReason } from './llm-error.js';
import { messagesFor, responseFormatFor, weakerJsonMode } from './json-mode.js';
import {
  DEFAULT_RETRY_POLICY,
  MalformedResponseError,
  classifyAttemptError,
  isResponseFormatRejection,
  retryDelayMs,
  type RetryPolicy,
} from './retry-policy.js';
import { estimateMessagesTokens, estimateTokens } from './token-estimate.js';
import type { ChatMessage, JsonMode, LlmCallOptions, LlmCallRecord, LlmCallResult, LlmGateway, ModelTier } from './types.js';
import { abortableSleep } from '../util/index.js';
import { createModelFetch } from './model-fetch.js';
import type { TurnTracing } from '../telemetry/index.js';
import { outgoingTraceHeaders } from '../trace-context.js';

/** Counters the gateway increments (structurally the `llmCalls` / `llmTokens` of `Metrics`). */
export interface LlmMetricsSink {
  llmCalls: { inc(labels: { purpose: string; model: string; tier: string; outcome: string }, value?: number): void };
  llmTokens: { inc(labels: { model: string; kind: string }, value?: number): void };
}

export interface LlmGatewayOptions {
  /** OpenAI-compatible base URL, usually ending in `/v1`. */
  baseUrl: string;
  /** Sent as a bearer token; local servers often need none. */
  apiKey?: string;
  /** Model name for the `main` tier. */
  model: string;
  /** Model name for the `small` tier; unset = the main model. */
  smallModel?: string;
  /** Per-attempt timeout (see file header). Default 20 000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Strongest structured-output mode to try first. Default `json_schema`. */
  jsonMode?: JsonMode;
  logger: Logger;
  /** The fetch the HTTP client uses. Default: `undici.request` on keep-alive pools of the gateway's own (`model-fetch.ts`). */
  fetch?: typeof globalThis.fetch;
  /** Circuit breaker settings, or `false` for none. */
  breaker?: CircuitBreakerOptions | false;
  /** Backoff settings (tests shorten them). */
  retryPolicy?: Partial<RetryPolicy>;
  metrics?: LlmMetricsSink;
  /** Each call inside a turn gets a child span of the turn's and sends its `traceparent` and `x-trace-id`. */
  tracing?: Pick<TurnTracing, 'startChild' | 'current'>;
}

export type CircuitState = 'closed' | 'open' | 'half_open';

/** The gateway `createLlmGateway` returns: the `LlmGateway` plus introspection. */
export interface OpenAiCompatibleGateway extends LlmGateway {
  /** Model name per tier (small = main when no small model is configured). */
  readonly models: Readonly<Record<ModelTier, string>>;
  /** The circuit breaker's state (`closed` when the breaker is disabled). */
  circuitState(): CircuitState;
  /** The structured-output mode the next schema call starts with. */
  currentJsonMode(): JsonMode;
  /** Stops the breaker's timers and ends the pooled connections (after the requests in flight). */
  close(): void;
}

interface AttemptOutcome {
  text: string;
  promptTokens?: number;
  completionTokens?: number;
}

interface AttemptState {
  timedOut: boolean;
  tokensDelivered: boolean;
}

type Attempt = () => Promise<AttemptOutcome>;

/** Creates a gateway to one OpenAI-compatible endpoint. Throws `LlmConfigError` on unusable options. */
export function createLlmGateway(options: LlmGatewayOptions): OpenAiCompatibleGateway {
  const settings = checkGatewayOptions(options);
  const { logger } = options;
  const models: Record<ModelTier, string> = { main: settings.model, small: settings.smallModel ?? settings.model };
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retryPolicy };
  const pooled = options.fetch ? undefined : createModelFetch();
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: options.apiKey && options.apiKey.length > 0 ? options.apiKey : 'not-needed',
    maxRetries: 0,
    // Our per-attempt timer governs; this is only a backstop.
    timeout: settings.timeoutMs * 4,
    fetch: options.fetch ?? pooled!.fetch,
    // The client's own messages are details of failures we report ourselves.
    logger: clientLogger(logger),
  });
  let preferredJsonMode: JsonMode = options.jsonMode ?? 'json_schema';
  const breaker = options.breaker === false ? undefined : createEndpointBreaker<AttemptOutcome>(options.breaker ?? {}, logger);

  async function runThroughBreaker(attempt: Attempt): Promise<AttemptOutcome> {
    return breaker ? breaker.fire(attempt) : attempt();
  }

  async function runAttempt(
    model: string,
    messages: ChatMessage[],
    responseFormat: Record<string, unknown> | undefined,
    call: LlmCallOptions,
    state: AttemptState,
    headers: Record<string, string> | undefined,
  ): Promise<AttemptOutcome> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const armTimer = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        state.timedOut = true;
        controller.abort();
      }, settings.timeoutMs);
    };
    const onCallerAbort = (): void => controller.abort();
    call.signal?.addEventListener('abort', onCallerAbort, { once: true });
    armTimer();
    try {
      const body: ChatCompletionCreateParamsNonStreaming = {
        model,
        messages,
        ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
        ...(call.maxTokens !== undefined ? { max_tokens: call.maxTokens } : {}),
        ...(responseFormat ? { response_format: responseFormat as unknown as ChatCompletionCreateParamsNonStreaming['response_format'] } : {}),
      };
      if (!call.onToken) {
        const completion: unknown = await client.chat.completions.create(body, { signal: controller.signal, headers });
        return readCompletion(completion, call.jsonSchema !== undefined);
      }
      const stream = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal: controller.signal, headers },
      );
      let text = '';
      let finished = false;
      let usage: ChatCompletionChunk['usage'] | undefined;
      for await (const chunk of stream) {
        armTimer();
        const choice = chunk.choices?.[0];
        const delta = choice?.delta?.content;
        if (typeof delta === 'string' && delta.length > 0) {
          text += delta;
          state.tokensDelivered = true;
          call.onToken(delta);
        }
        if (choice?.finish_reason) finished = true;
        if (chunk.usage) usage = chunk.usage;
      }
      // The client's stream ends quietly on abort; make it an error here.
      if (controller.signal.aborted) throw new DOMException('stream aborted', 'AbortError');
      if (!finished) throw new MalformedResponseError('the stream ended before the model finished');
      return { text, promptTokens: usage?.prompt_tokens, completionTokens: usage?.completion_tokens };
    } catch (error) {
      if (call.signal?.aborted) throw new CallerAbortedError();
      throw error;
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  async function complete(call: LlmCallOptions): Promise<LlmCallResult> {
    const started = performance.now();
    const tier: ModelTier = call?.tier === 'small' ? 'small' : 'main';
    const model = models[tier];
    let attempts = 0;
    let jsonMode: JsonMode | undefined = call?.jsonSchema ? preferredJsonMode : undefined;
    const turn = options.tracing?.current();
    const span = options.tracing?.startChild('switchboard.model_call', {
      role: 'client',
      attributes: { 'gen_ai.request.model': model, 'switchboard.purpose': typeof call?.purpose === 'string' ? call.purpose : 'unknown', 'switchboard.tier': tier },
    });
    const traceHeaders = turn && span ? outgoingTraceHeaders(turn.traceId, span.context) : undefined;

    const record = (
      fields: Pick<LlmCallRecord, 'ok' | 'promptTokens' | 'completionTokens'> & Partial<LlmCallRecord>,
      reason?: LlmFailureReason,
    ): LlmCallRecord => {
      const entry: LlmCallRecord = {
        purpose: typeof call?.purpose === 'string' ? call.purpose : 'unknown',
        model,
        tier,
        latencyMs: Math.round(performance.now() - started),
        attempts,
        ...(call?.tierReason ? { tierReason: call.tierReason } : {}),
        ...(jsonMode ? { jsonMode } : {}),
        ...fields,
      };
      call?.usage?.calls.push(entry);
      span?.setAttributes({ 'switchboard.attempts': attempts, 'gen_ai.usage.input_tokens': entry.promptTokens, 'gen_ai.usage.output_tokens': entry.completionTokens });
      span?.end(entry.ok ? undefined : (reason ?? 'failed'));
      options.metrics?.llmCalls.inc({ purpose: entry.purpose, model, tier, outcome: entry.ok ? 'ok' : (reason ?? 'failed') });
      if (entry.ok) {
        options.metrics?.llmTokens.inc({ model, kind: 'prompt' }, entry.promptTokens);
        options.metrics?.llmTokens.inc({ model, kind: 'completion' }, entry.completionTokens);
      }
      if (entry.ok) logger.info(entry, 'llm call');
      else logger.warn(entry, 'llm call failed');
      return entry;
    };

    // Tokens the endpoint reported for replies that could not be used: they were spent all the same.
    const spent = { prompt: 0, completion: 0 };
    const fail = (reason: LlmFailureReason, message: string, status?: number, cause?: unknown): never => {
      const error = new LlmCallError(reason, `LLM call "${call?.purpose ?? 'unknown'}" failed: ${message}`, { attempts, status, cause });
      record({ ok: false, promptTokens: spent.prompt, completionTokens: spent.completion, error: `${reason}: ${message}` }, reason);
      throw error;
    };

    const invalid = describeInvalidCall(call);
    if (invalid) fail('invalid_request', invalid);

    let retriesUsed = 0;
    const state: AttemptState = { timedOut: false, tokensDelivered: false };
    for (;;) {
      if (call.signal?.aborted) fail('aborted', 'the call was aborted by the caller');
      const messages = jsonMode && call.jsonSchema ? messagesFor(jsonMode, call.messages, call.jsonSchema) : call.messages.map((message) => ({ ...message }));
      const responseFormat = jsonMode && call.jsonSchema ? responseFormatFor(jsonMode, call.jsonSchema) : undefined;
      state.timedOut = false;
      try {
        attempts += 1;
        const outcome = await runThroughBreaker(() => runAttempt(model, messages, responseFormat, call, state, traceHeaders));
        const estimated = outcome.promptTokens === undefined || outcome.completionTokens === undefined;
        const promptTokens = (outcome.promptTokens ?? estimateMessagesTokens(messages)) + spent.prompt;
        const completionTokens = (outcome.completionTokens ?? estimateTokens(outcome.text)) + spent.completion;
        const entry = record({ ok: true, promptTokens, completionTokens, tokensEstimated: estimated });
        return { text: outcome.text, model, promptTokens, completionTokens, latencyMs: entry.latencyMs, attempts, tokensEstimated: estimated };
      } catch (error) {
        if (error instanceof MalformedResponseError) {
          spent.prompt += error.promptTokens ?? 0;
          spent.completion += error.completionTokens ?? 0;
        }
        const breakerOpen = (error as { code?: unknown }).code === 'EOPENBREAKER';
        if (breakerOpen) attempts -= 1; // nothing was sent
        if (jsonMode && jsonMode !== 'prompt' && !call.signal?.aborted && isResponseFormatRejection(error)) {
          const weaker = weakerJsonMode(jsonMode)!;
          logger.warn({ purpose: call.purpose, model, rejectedMode: jsonMode, nextMode: weaker }, 'endpoint rejected structured-output mode; stepping down');
          if (modeStrength(weaker) < modeStrength(preferredJsonMode)) preferredJsonMode = weaker;
          jsonMode = weaker;
          continue;
        }
        const failure = classifyAttemptError(
          error,
          { callerAborted: call.signal?.aborted === true || error instanceof CallerAbortedError, timedOut: state.timedOut, timeoutMs: settings.timeoutMs, breakerOpen },
          policy.maxRetryAfterMs,
        );
        const canRetry = failure.retryable && retriesUsed < settings.maxRetries && !state.tokensDelivered;
        if (!canRetry) {
          const suffix = failure.retryable && attempts > 1 ? ` (after ${attempts} attempts)` : '';
          fail(failure.reason, failure.message + suffix, failure.status, error);
        }
        retriesUsed += 1;
        const delayMs = retryDelayMs(retriesUsed, policy, failure.retryAfterMs);
        logger.info({ purpose: call.purpose, model, attempt: attempts, reason: failure.reason, status: failure.status, delayMs }, 'llm attempt failed; retrying');
        const slept = await abortableSleep(delayMs, call.signal);
        if (!slept) fail('aborted', 'the call was aborted by the caller while waiting to retry');
      }
    }
  }

  return {
    enabled: true,
    models,
    complete,
    circuitState: () => (!breaker ? 'closed' : breaker.halfOpen ? 'half_open' : breaker.opened ? 'open' : 'closed'),
    currentJsonMode: () => preferredJsonMode,
    close: () => {
      breaker?.shutdown();
      void pooled?.close();
    },
  };
}

function clientLogger(logger: Logger): { error: ClientLogFunction; warn: ClientLogFunction; info: ClientLogFunction; debug: ClientLogFunction } {
  const toDebug: ClientLogFunction = (message, ...rest) => logger.debug({ component: 'openai-client', detail: rest }, message);
  return { error: toDebug, warn: toDebug, info: toDebug, debug: toDebug };
}

type ClientLogFunction = (message: string, ...rest: unknown[]) => void;

/**
 * The reply's text and reported tokens. A JSON call answered with a tool call
 * (content null, the JSON in the first call's `arguments`, as some compatible
 * servers answer) is read from the arguments; the caller validates it like any
 * text. A reply that cannot be used still cost what its `usage` says: the
 * error carries those tokens.
 */
function readCompletion(completion: unknown, json: boolean): AttemptOutcome {
  if (typeof completion !== 'object' || completion === null || !Array.isArray((completion as ChatCompletion).choices)) {
    throw new MalformedResponseError('the body is not a chat completion (no choices array)');
  }
  const typed = completion as ChatCompletion;
  const message = typed.choices[0]?.message;
  const tokens = { promptTokens: typed.usage?.prompt_tokens, completionTokens: typed.usage?.completion_tokens };
  const argumentsText = message?.tool_calls?.[0]?.type === 'function' ? message.tool_calls[0].function.arguments : undefined;
  const fromToolCall = json && typeof argumentsText === 'string' && argumentsText.trim() !== '' && !message?.content?.trim();
  if (fromToolCall) return { text: argumentsText, ...tokens };
  if (typeof message?.content !== 'string') {
    const refusal = (message as { refusal?: unknown } | undefined)?.refusal;
    throw new MalformedResponseError(typeof refusal === 'string' ? `the model refused: ${refusal}` : 'choices[0].message.content is missing', tokens);
  }
  return { text: message.content, ...tokens };
}

function modeStrength(mode: JsonMode): number {
  return mode === 'json_schema' ? 2 : mode === 'json_object' ? 1 : 0;
}

