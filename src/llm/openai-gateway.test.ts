import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../logger.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReply } from '../../test/support/fake-openai.js';
import { LlmCallError } from './llm-error.js';
import { createLlmGateway, type LlmGatewayOptions, type OpenAiCompatibleGateway } from './openai-gateway.js';
import type { LlmCallOptions, LlmUsage } from './types.js';

const PLAN_SCHEMA = { name: 'task_plan', schema: { type: 'object', properties: { steps: { type: 'array' } }, required: ['steps'] } };

let fake: FakeOpenAI | undefined;
let gateway: OpenAiCompatibleGateway | undefined;

async function setup(replies: ScriptedReply[], options: Partial<LlmGatewayOptions> = {}): Promise<{ fake: FakeOpenAI; gateway: OpenAiCompatibleGateway }> {
  fake = await startFakeOpenAI({ replies });
  gateway = createLlmGateway({
    baseUrl: fake.baseUrl,
    apiKey: 'test-key',
    model: 'fake-main',
    logger: silentLogger,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
  return { fake, gateway };
}

function call(overrides: Partial<LlmCallOptions> = {}): LlmCallOptions {
  return { purpose: 'intent', tier: 'main', messages: [{ role: 'system', content: 'You route requests.' }, { role: 'user', content: 'book a hotel' }], ...overrides };
}

async function rejection(promise: Promise<unknown>): Promise<LlmCallError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(LlmCallError);
  return error as LlmCallError;
}

afterEach(async () => {
  gateway?.close();
  gateway = undefined;
  await fake?.close();
  fake = undefined;
});

describe('createLlmGateway: plain calls', () => {
  it('returns the text and records usage reported by the endpoint', async () => {
    const { fake, gateway } = await setup([{ content: 'hello there', usage: { prompt_tokens: 21, completion_tokens: 3 } }]);
    const usage: LlmUsage = { calls: [] };
    const result = await gateway.complete(call({ usage, tierReason: 'long query', temperature: 0, maxTokens: 50 }));
    expect(result).toMatchObject({ text: 'hello there', model: 'fake-main', promptTokens: 21, completionTokens: 3, attempts: 1, tokensEstimated: false });
    expect(usage.calls).toHaveLength(1);
    expect(usage.calls[0]).toMatchObject({ purpose: 'intent', model: 'fake-main', tier: 'main', promptTokens: 21, completionTokens: 3, attempts: 1, ok: true, tierReason: 'long query', tokensEstimated: false });
    expect(fake.requests[0]).toMatchObject({ model: 'fake-main', stream: false, response_format: undefined });
    expect(fake.requests[0]!.body).toMatchObject({ temperature: 0, max_tokens: 50 });
    expect(fake.requests[0]!.messages).toEqual(call().messages);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer test-key');
    fake.assertComplete();
  });

  it('estimates tokens when the endpoint sends no usage, and says so', async () => {
    const { fake, gateway } = await setup([{ content: '你好世界', usage: false }]);
    const usage: LlmUsage = { calls: [] };
    const result = await gateway.complete(call({ usage, messages: [{ role: 'user', content: '北京酒店 hotel' }] }));
    // 4 CJK characters + " hotel" (6 characters -> 2 tokens)
    expect(result).toMatchObject({ promptTokens: 6, completionTokens: 4, tokensEstimated: true });
    expect(usage.calls[0]).toMatchObject({ tokensEstimated: true, ok: true });
    fake.assertComplete();
  });

  it('maps the small tier to the small model, or to the main model when none is set', async () => {
    const { fake, gateway } = await setup(['a'], { smallModel: 'fake-small' });
    await gateway.complete(call({ tier: 'small' }));
    expect(fake.requests[0]!.model).toBe('fake-small');
    expect(gateway.models).toEqual({ main: 'fake-main', small: 'fake-small' });
    fake.assertComplete();

    const other = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger });
    fake.push('b');
    const usage: LlmUsage = { calls: [] };
    await other.complete(call({ tier: 'small', usage }));
    expect(fake.requests[1]!.model).toBe('fake-main');
    expect(usage.calls[0]).toMatchObject({ tier: 'small', model: 'fake-main' });
    other.close();
    fake.assertComplete();
  });

  it('sends through the fetch it was given', async () => {
    const seen: string[] = [];
    const countingFetch: typeof globalThis.fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return globalThis.fetch(input, init);
    };
    const { fake, gateway } = await setup(['via custom fetch'], { fetch: countingFetch });
    expect((await gateway.complete(call())).text).toBe('via custom fetch');
    expect(seen).toEqual([`${fake.baseUrl}/chat/completions`]);
    fake.assertComplete();
  });

  it('increments the metrics sink', async () => {
    const counted: { name: string; labels: Record<string, string>; value: number }[] = [];
    const sink = {
      llmCalls: { inc: (labels: Record<string, string>, value = 1) => counted.push({ name: 'calls', labels, value }) },
      llmTokens: { inc: (labels: Record<string, string>, value = 1) => counted.push({ name: 'tokens', labels, value }) },
    };
    const { fake, gateway } = await setup([{ content: 'x', usage: { prompt_tokens: 7, completion_tokens: 2 } }, { status: 400 }], { metrics: sink });
    await gateway.complete(call({ purpose: 'plan' }));
    await rejection(gateway.complete(call({ purpose: 'plan' })));
    expect(counted).toEqual([
      { name: 'calls', labels: { purpose: 'plan', model: 'fake-main', tier: 'main', outcome: 'ok' }, value: 1 },
      { name: 'tokens', labels: { model: 'fake-main', kind: 'prompt' }, value: 7 },
      { name: 'tokens', labels: { model: 'fake-main', kind: 'completion' }, value: 2 },
      { name: 'calls', labels: { purpose: 'plan', model: 'fake-main', tier: 'main', outcome: 'rejected' }, value: 1 },
    ]);
    fake.assertComplete();
  });

  it('rejects invalid call options with a clear error and sends nothing', async () => {
    const { fake, gateway } = await setup([]);
    const usage: LlmUsage = { calls: [] };
    const error = await rejection(gateway.complete({ purpose: 'intent', tier: 'main', messages: [], usage }));
    expect(error.reason).toBe('invalid_request');
    expect(error.message).toMatch(/messages must be a non-empty array/);
    const badRole = await rejection(gateway.complete({ purpose: 'intent', tier: 'main', messages: [{ role: 'robot' as 'user', content: 'x' }] }));
    expect(badRole.message).toMatch(/messages\[0\]\.role/);
    expect(usage.calls[0]).toMatchObject({ ok: false, attempts: 0 });
    expect(fake.requests).toHaveLength(0);
    fake.assertComplete();
  });
});

describe('createLlmGateway: streaming', () => {
  it('passes each delta to onToken in order and returns the full text', async () => {
    const { fake, gateway } = await setup([{ streamChunks: ['您好', '，北京', '明天晴', '。'], usage: { prompt_tokens: 30, completion_tokens: 9 } }]);
    const deltas: string[] = [];
    const usage: LlmUsage = { calls: [] };
    const result = await gateway.complete(call({ purpose: 'answer', onToken: (delta) => deltas.push(delta), usage }));
    expect(deltas).toEqual(['您好', '，北京', '明天晴', '。']);
    expect(result.text).toBe('您好，北京明天晴。');
    expect(result).toMatchObject({ promptTokens: 30, completionTokens: 9, tokensEstimated: false });
    expect(fake.requests[0]!.stream).toBe(true);
    expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });
    fake.assertComplete();
  });

  it('estimates tokens for a stream without a usage chunk', async () => {
    const { fake, gateway } = await setup([{ content: 'abcdefgh', usage: false }]);
    const result = await gateway.complete(call({ onToken: () => {} }));
    expect(result).toMatchObject({ text: 'abcdefgh', completionTokens: 2, tokensEstimated: true });
    fake.assertComplete();
  });

  it('retries a stream that failed before any token was shown', async () => {
    const { fake, gateway } = await setup([{ status: 502 }, { streamChunks: ['ok'] }], { maxRetries: 1 });
    const deltas: string[] = [];
    const result = await gateway.complete(call({ onToken: (delta) => deltas.push(delta) }));
    expect(result).toMatchObject({ text: 'ok', attempts: 2 });
    expect(deltas).toEqual(['ok']);
    expect(fake.requests.map((request) => request.stream)).toEqual([true, true]);
    fake.assertComplete();
  });

  it('fails a stream cut off after tokens were shown, without retrying it', async () => {
    const { fake, gateway } = await setup([{ streamChunks: ['part', 'ial'], truncateStream: true }], { maxRetries: 2 });
    const deltas: string[] = [];
    const error = await rejection(gateway.complete(call({ onToken: (delta) => deltas.push(delta) })));
    expect(error.reason).toBe('malformed');
    expect(error.message).toMatch(/stream ended before the model finished/);
    expect(deltas).toEqual(['part', 'ial']);
    expect(fake.requests).toHaveLength(1);
    fake.assertComplete();
  });
});

describe('createLlmGateway: structured output', () => {
  it('sends response_format json_schema with strict false', async () => {
    const { fake, gateway } = await setup([{ content: { steps: [] } }]);
    const usage: LlmUsage = { calls: [] };
    const result = await gateway.complete(call({ purpose: 'plan', jsonSchema: PLAN_SCHEMA, usage }));
    expect(JSON.parse(result.text)).toEqual({ steps: [] });
    expect(fake.requests[0]!.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'task_plan', schema: PLAN_SCHEMA.schema, strict: false } });
    expect(fake.requests[0]!.messages).toEqual(call().messages);
    expect(usage.calls[0]).toMatchObject({ jsonMode: 'json_schema', attempts: 1 });
    fake.assertComplete();
  });

  it('steps down to json_object then prompt when rejected, and remembers it', async () => {
    const { fake, gateway } = await setup([{ rejectResponseFormat: true }, { rejectResponseFormat: true }, '{"steps":[1]}', '{"steps":[2]}'], { maxRetries: 0 });
    const usage: LlmUsage = { calls: [] };
    const first = await gateway.complete(call({ purpose: 'plan', jsonSchema: PLAN_SCHEMA, usage }));
    expect(first.text).toBe('{"steps":[1]}');
    expect(first.attempts).toBe(3);
    expect(fake.requests.map((request) => request.response_format?.type)).toEqual(['json_schema', 'json_object', undefined]);
    const systemOf = (index: number) => fake.requests[index]!.messages.find((message) => message.role === 'system')!.content;
    expect(systemOf(0)).toBe('You route requests.');
    expect(systemOf(1)).toContain('Reply with one JSON object only');
    expect(systemOf(1)).toContain(JSON.stringify(PLAN_SCHEMA.schema));
    expect(systemOf(2)).toContain(JSON.stringify(PLAN_SCHEMA.schema));
    expect(usage.calls[0]).toMatchObject({ ok: true, jsonMode: 'prompt', attempts: 3 });
    expect(gateway.currentJsonMode()).toBe('prompt');

    await gateway.complete(call({ purpose: 'plan', jsonSchema: PLAN_SCHEMA, usage }));
    expect(fake.requests).toHaveLength(4);
    expect(fake.requests[3]!.response_format).toBeUndefined();
    expect(usage.calls[1]).toMatchObject({ jsonMode: 'prompt', attempts: 1 });
    fake.assertComplete();
  });

  it('keeps json_object when that is the strongest mode the endpoint accepts', async () => {
    const { fake, gateway } = await setup([{ rejectResponseFormat: true }, '{"steps":[]}', '{"steps":[]}']);
    await gateway.complete(call({ jsonSchema: PLAN_SCHEMA }));
    await gateway.complete(call({ jsonSchema: PLAN_SCHEMA, messages: [{ role: 'user', content: 'no system message here' }] }));
    expect(fake.requests.map((request) => request.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(fake.requests[2]!.messages[0]).toMatchObject({ role: 'system' });
    expect(fake.requests[2]!.messages[0]!.content).toContain('Reply with one JSON object only');
    expect(gateway.currentJsonMode()).toBe('json_object');
    fake.assertComplete();
  });

  it('does not send response_format for a call without a schema', async () => {
    const { fake, gateway } = await setup(['plain']);
    await gateway.complete(call());
    expect(fake.requests[0]!.response_format).toBeUndefined();
    fake.assertComplete();
  });
});

describe('createLlmGateway: retries and failures', () => {
  it('honours Retry-After on 429 and then succeeds', async () => {
    const { fake, gateway } = await setup([{ status: 429, retryAfter: 1 }, 'after the wait']);
    const usage: LlmUsage = { calls: [] };
    const started = Date.now();
    const result = await gateway.complete(call({ usage }));
    const elapsed = Date.now() - started;
    expect(result.text).toBe('after the wait');
    expect(result.attempts).toBe(2);
    expect(usage.calls[0]).toMatchObject({ ok: true, attempts: 2 });
    // Lower bound of a deliberate wait, not a speed target.
    expect(elapsed).toBeGreaterThanOrEqual(900);
    fake.assertComplete();
  });

  it('retries 500 and rejects with a clear error once retries are exhausted', async () => {
    const { fake, gateway } = await setup([{ status: 500 }, { status: 500 }, { status: 503, errorMessage: 'overloaded' }], { maxRetries: 2 });
    const usage: LlmUsage = { calls: [] };
    const error = await rejection(gateway.complete(call({ usage })));
    expect(error.reason).toBe('server_error');
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(3);
    expect(error.message).toMatch(/LLM call "intent" failed: endpoint error \(503\).*overloaded.*after 3 attempts/);
    expect(usage.calls).toHaveLength(1);
    expect(usage.calls[0]).toMatchObject({ ok: false, attempts: 3, purpose: 'intent' });
    expect(usage.calls[0]!.error).toMatch(/^server_error: /);
    expect(fake.requests).toHaveLength(3);
    fake.assertComplete();
  });

  it('does not retry a 4xx refusal', async () => {
    const { fake, gateway } = await setup([{ status: 401, errorMessage: 'bad key' }], { maxRetries: 2 });
    const error = await rejection(gateway.complete(call()));
    expect(error).toMatchObject({ reason: 'rejected', status: 401, attempts: 1 });
    expect(error.message).toMatch(/bad key/);
    fake.assertComplete();
  });

  it('reads a tool-call reply of a JSON call as its text, and keeps the tokens of a reply it cannot use', async () => {
    const toolCallReply: typeof globalThis.fetch = async () =>
      new Response(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'fake-main',
          choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'task_plan', arguments: '{"steps":[]}' } }] } }],
          usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
        }),
        { status: 200, headers: { 'content-type': 'application/json' } },
      );
    const { gateway } = await setup([], { fetch: toolCallReply, maxRetries: 0 });
    const usage: LlmUsage = { calls: [] };
    expect(await gateway.complete(call({ jsonSchema: PLAN_SCHEMA, usage }))).toMatchObject({ text: '{"steps":[]}', promptTokens: 30, completionTokens: 7 });
    // A free-text call has no use for a tool call: it fails, but the tokens the endpoint reported are still counted.
    const error = await rejection(gateway.complete(call({ usage })));
    expect(error.reason).toBe('malformed');
    expect(usage.calls.map((entry) => [entry.ok, entry.promptTokens, entry.completionTokens])).toEqual([
      [true, 30, 7],
      [false, 30, 7],
    ]);
  });

  it('treats a malformed body as a failure and retries it', async () => {
    const { fake, gateway } = await setup([{ malformed: true }, { malformed: true }], { maxRetries: 1 });
    const error = await rejection(gateway.complete(call()));
    expect(error.reason).toBe('malformed');
    expect(error.attempts).toBe(2);
    fake.push({ malformed: true }, 'recovered');
    const result = await gateway.complete(call());
    expect(result).toMatchObject({ text: 'recovered', attempts: 2 });
    fake.assertComplete();
  });

  it('rejects a malformed stream', async () => {
    const { fake, gateway } = await setup([{ content: '', malformed: true }], { maxRetries: 0 });
    const error = await rejection(gateway.complete(call({ onToken: () => {} })));
    expect(error.reason).toBe('malformed');
    fake.assertComplete();
  });

  it('times out a request that never answers, without retrying it', async () => {
    const { fake, gateway } = await setup([{ hang: true }], { timeoutMs: 300, maxRetries: 2 });
    const usage: LlmUsage = { calls: [] };
    const error = await rejection(gateway.complete(call({ usage })));
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/no answer within 300 ms/);
    expect(error.attempts).toBe(1);
    expect(usage.calls[0]).toMatchObject({ ok: false, attempts: 1 });
    fake.assertComplete();
  });

  it('times out a stream that stalls between chunks', async () => {
    const { fake, gateway } = await setup([{ streamChunks: ['a', 'b'], chunkDelayMs: 2000 }], { timeoutMs: 300, maxRetries: 0 });
    const error = await rejection(gateway.complete(call({ onToken: () => {} })));
    expect(error.reason).toBe('timeout');
    fake.assertComplete();
  });

  it('never retries when the caller aborts', async () => {
    const { fake, gateway } = await setup([{ hang: true }], { maxRetries: 2 });
    const controller = new AbortController();
    const usage: LlmUsage = { calls: [] };
    const pending = gateway.complete(call({ signal: controller.signal, usage }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    controller.abort();
    const error = await rejection(pending);
    expect(error.reason).toBe('aborted');
    expect(error.attempts).toBe(1);
    expect(usage.calls[0]).toMatchObject({ ok: false, attempts: 1 });
    expect(fake.requests).toHaveLength(1);
    fake.assertComplete();
  });

  it('stops waiting to retry when the caller aborts', async () => {
    const { fake, gateway } = await setup([{ status: 429, retryAfter: 8 }], { maxRetries: 2 });
    const controller = new AbortController();
    const pending = gateway.complete(call({ signal: controller.signal }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    controller.abort();
    const error = await rejection(pending);
    expect(error.reason).toBe('aborted');
    expect(fake.requests).toHaveLength(1);
    fake.assertComplete();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const { fake, gateway } = await setup([]);
    const error = await rejection(gateway.complete(call({ signal: AbortSignal.abort() })));
    expect(error).toMatchObject({ reason: 'aborted', attempts: 0 });
    fake.assertComplete();
  });

  it('reports a connection failure when nothing listens', async () => {
    const { fake } = await setup([]);
    const baseUrl = fake.baseUrl;
    await fake.close();
    const offline = createLlmGateway({ baseUrl, model: 'm', logger: silentLogger, maxRetries: 1, retryPolicy: { baseDelayMs: 5 } });
    const error = await rejection(offline.complete(call()));
    expect(error.reason).toBe('connection');
    expect(error.attempts).toBe(2);
    offline.close();
  });
});

describe('createLlmGateway: circuit breaker', () => {
  it('opens after repeated failures and then fails fast without calling the endpoint', async () => {
    const { fake, gateway } = await setup([{ status: 500 }, { status: 500 }, { status: 500 }], {
      maxRetries: 0,
      breaker: { failureThreshold: 3, resetTimeoutMs: 60_000 },
    });
    for (let index = 0; index < 3; index++) await rejection(gateway.complete(call()));
    expect(gateway.circuitState()).toBe('open');
    const usage: LlmUsage = { calls: [] };
    const error = await rejection(gateway.complete(call({ usage })));
    expect(error.reason).toBe('circuit_open');
    expect(error.message).toMatch(/circuit breaker is open/);
    expect(usage.calls[0]).toMatchObject({ ok: false, attempts: 0 });
    expect(fake.requests).toHaveLength(3);
    fake.assertComplete();
  });

  it('lets one trial call through after the reset timeout and closes on success', async () => {
    const { fake, gateway } = await setup([{ status: 500 }, { status: 500 }], {
      maxRetries: 0,
      breaker: { failureThreshold: 2, resetTimeoutMs: 200 },
    });
    await rejection(gateway.complete(call()));
    await rejection(gateway.complete(call()));
    expect(gateway.circuitState()).toBe('open');
    await vi.waitFor(() => expect(gateway.circuitState()).toBe('half_open'), { timeout: 3000, interval: 50 });
    fake.push('back');
    const result = await gateway.complete(call());
    expect(result.text).toBe('back');
    expect(gateway.circuitState()).toBe('closed');
    fake.assertComplete();
  });

  it('does not count refusals or caller aborts as endpoint failures', async () => {
    const { fake, gateway } = await setup([{ status: 400 }, { status: 400 }, { hang: true }, 'fine'], {
      maxRetries: 0,
      breaker: { failureThreshold: 2 },
    });
    await rejection(gateway.complete(call()));
    await rejection(gateway.complete(call()));
    const controller = new AbortController();
    const pending = gateway.complete(call({ signal: controller.signal }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(3));
    controller.abort();
    await rejection(pending);
    expect(gateway.circuitState()).toBe('closed');
    expect((await gateway.complete(call())).text).toBe('fine');
    fake.assertComplete();
  });

  it('can be turned off', async () => {
    const { fake, gateway } = await setup([{ status: 500 }, { status: 500 }, 'ok'], { maxRetries: 0, breaker: false });
    await rejection(gateway.complete(call()));
    await rejection(gateway.complete(call()));
    expect(gateway.circuitState()).toBe('closed');
    expect((await gateway.complete(call())).text).toBe('ok');
    fake.assertComplete();
  });
});

describe('createLlmGateway: options', () => {
  it.each([
    [{ baseUrl: '' }, /base URL is missing/],
    [{ baseUrl: 'not a url' }, /not a valid URL/],
    [{ baseUrl: 'ftp://example.com' }, /must be http or https/],
    [{ model: ' ' }, /model name is missing/],
    [{ timeoutMs: 0 }, /timeout must be a positive integer/],
    [{ maxRetries: -1 }, /max retries must be an integer/],
  ])('rejects %o', (override, message) => {
    expect(() => createLlmGateway({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', logger: silentLogger, ...override })).toThrow(message);
  });
});
