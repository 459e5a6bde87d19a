import { describe, expect, it } from 'vitest';
import { createLlmUsage, summariseUsage } from './usage-summary.js';
import type { LlmCallRecord } from './types.js';

function record(overrides: Partial<LlmCallRecord>): LlmCallRecord {
  return { purpose: 'intent', model: 'm', tier: 'main', promptTokens: 0, completionTokens: 0, latencyMs: 0, attempts: 1, ok: true, ...overrides };
}

describe('summariseUsage', () => {
  it('is all zeros for no calls', () => {
    expect(summariseUsage(createLlmUsage())).toEqual({ calls: 0, prompt_tokens: 0, completion_tokens: 0, latency_ms: 0, failed_calls: 0, tokens_estimated: false, by_purpose: {} });
    expect(summariseUsage(undefined).calls).toBe(0);
  });

  it('sums totals and per purpose, counting failures and estimates', () => {
    const usage = createLlmUsage();
    usage.calls.push(
      record({ purpose: 'intent', promptTokens: 100, completionTokens: 20, latencyMs: 300 }),
      record({ purpose: 'plan', promptTokens: 400, completionTokens: 80, latencyMs: 900, tokensEstimated: true }),
      record({ purpose: 'answer', promptTokens: 0, completionTokens: 0, latencyMs: 50, ok: false, error: 'timeout: x' }),
      record({ purpose: 'plan', promptTokens: 10, completionTokens: 5, latencyMs: 100 }),
    );
    const summary = summariseUsage(usage);
    expect(summary).toMatchObject({ calls: 4, prompt_tokens: 510, completion_tokens: 105, latency_ms: 1350, failed_calls: 1, tokens_estimated: true });
    expect(summary.by_purpose).toEqual({
      intent: { calls: 1, prompt_tokens: 100, completion_tokens: 20, latency_ms: 300 },
      plan: { calls: 2, prompt_tokens: 410, completion_tokens: 85, latency_ms: 1000 },
      answer: { calls: 1, prompt_tokens: 0, completion_tokens: 0, latency_ms: 50 },
    });
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });
});
