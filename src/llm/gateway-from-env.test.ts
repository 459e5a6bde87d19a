import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../test/support/fake-openai.js';
import { createDisabledLlmGateway, createLlmGatewayFromEnv } from './gateway-from-env.js';
import { LlmCallError, LlmConfigError } from './llm-error.js';
import type { OpenAiCompatibleGateway } from './openai-gateway.js';
import type { LlmGateway, LlmUsage } from './types.js';

let fake: FakeOpenAI | undefined;
let gateway: LlmGateway | undefined;

afterEach(async () => {
  (gateway as Partial<OpenAiCompatibleGateway> | undefined)?.close?.();
  gateway = undefined;
  await fake?.close();
  fake = undefined;
});

const message = [{ role: 'user' as const, content: 'hi' }];

describe('createLlmGatewayFromEnv', () => {
  it.each([
    [{}, /LLM_MODEL and LLM_BASE_URL not set/],
    [{ LLM_BASE_URL: 'http://127.0.0.1:1/v1' }, /LLM_MODEL not set/],
    [{ LLM_MODEL: 'm', LLM_BASE_URL: '  ' }, /LLM_BASE_URL not set/],
  ])('is disabled for %o', async (env, reason) => {
    gateway = createLlmGatewayFromEnv(env, silentLogger);
    expect(gateway.enabled).toBe(false);
    const usage: LlmUsage = { calls: [] };
    const error = await gateway.complete({ purpose: 'intent', tier: 'main', messages: message, usage }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LlmCallError);
    expect((error as LlmCallError).reason).toBe('disabled');
    expect((error as LlmCallError).message).toMatch(reason);
    expect(usage.calls[0]).toMatchObject({ ok: false, attempts: 0, purpose: 'intent' });
  });

  it('talks to the configured endpoint with the configured models and JSON mode', async () => {
    fake = await startFakeOpenAI({ replies: ['{"a":1}', 'small answer'] });
    gateway = createLlmGatewayFromEnv(
      { LLM_BASE_URL: fake.baseUrl, LLM_API_KEY: 'k-1', LLM_MODEL: 'big', LLM_SMALL_MODEL: 'little', LLM_JSON_MODE: 'prompt', LLM_TIMEOUT_MS: '5000', LLM_MAX_RETRIES: '0' },
      silentLogger,
    );
    expect(gateway.enabled).toBe(true);
    await gateway.complete({ purpose: 'plan', tier: 'main', messages: message, jsonSchema: { name: 'x', schema: { type: 'object' } } });
    await gateway.complete({ purpose: 'intent', tier: 'small', messages: message });
    expect(fake.requests.map((request) => request.model)).toEqual(['big', 'little']);
    expect(fake.requests[0]!.response_format).toBeUndefined();
    expect(fake.requests[0]!.messages[0]!.content).toContain('Reply with one JSON object only');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer k-1');
    fake.assertComplete();
  });

  it('uses the main model for the small tier when LLM_SMALL_MODEL is unset', async () => {
    fake = await startFakeOpenAI({ replies: ['ok'] });
    gateway = createLlmGatewayFromEnv({ LLM_BASE_URL: fake.baseUrl, LLM_MODEL: 'big' }, silentLogger);
    await gateway.complete({ purpose: 'intent', tier: 'small', messages: message });
    expect(fake.requests[0]!.model).toBe('big');
    fake.assertComplete();
  });

  it.each([
    [{ LLM_TIMEOUT_MS: 'soon' }, /LLM_TIMEOUT_MS must be an integer ≥ 1, got "soon"/],
    [{ LLM_TIMEOUT_MS: '0' }, /LLM_TIMEOUT_MS/],
    [{ LLM_MAX_RETRIES: '-1' }, /LLM_MAX_RETRIES must be an integer ≥ 0/],
    [{ LLM_MAX_RETRIES: '1.5' }, /LLM_MAX_RETRIES/],
    [{ LLM_JSON_MODE: 'xml' }, /LLM_JSON_MODE must be json_schema, json_object or prompt, got "xml"/],
    [{ LLM_BASE_URL: 'nope' }, /not a valid URL/],
  ])('rejects %o with a clear error', (override, expected) => {
    const env = { LLM_BASE_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'm', ...override };
    expect(() => createLlmGatewayFromEnv(env, silentLogger)).toThrow(LlmConfigError);
    expect(() => createLlmGatewayFromEnv(env, silentLogger)).toThrow(expected);
  });
});

describe('createDisabledLlmGateway', () => {
  it('rejects every call with the given reason', async () => {
    const disabled = createDisabledLlmGateway('no key in tests');
    await expect(disabled.complete({ purpose: 'answer', tier: 'small', messages: message })).rejects.toThrow(/"answer" not made: no key in tests/);
  });
});
