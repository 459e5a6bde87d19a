import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics.js';
import type { LlmCallRecord } from '../llm/types.js';
import { recordModelTokens } from './turn-metrics.js';
import { summariseTurnUsage } from './turn-usage.js';

function call(overrides: Partial<LlmCallRecord>): LlmCallRecord {
  return { purpose: 'intent', model: 'm1', tier: 'main', promptTokens: 0, completionTokens: 0, latencyMs: 5, attempts: 1, ok: true, ...overrides };
}

describe('turn usage', () => {
  it('is all zeros for an offline turn with no calls', () => {
    expect(summariseTurnUsage({ calls: [] }, [])).toEqual({ model_calls: 0, prompt_tokens: 0, completion_tokens: 0, agent_calls: 0, by_agent: {} });
  });

  it('sums reported tokens (not estimates) and sub-agent calls by agent with failures and time', () => {
    const usage = summariseTurnUsage(
      { calls: [call({ promptTokens: 100, completionTokens: 20 }), call({ promptTokens: 50, completionTokens: 5, tokensEstimated: true }), call({ ok: false })] },
      [
        { task_id: 't1', agent_id: 'hotel', ok: true, status: 'completed', ms: 40.4 },
        { task_id: 't1_verify_1', agent_id: 'hotel', ok: false, status: 'timeout', ms: 100 },
        { task_id: 't2', agent_id: 'weather', ok: true, status: 'input_required', ms: 7 },
      ],
    );
    expect(usage).toEqual({
      model_calls: 3,
      prompt_tokens: 100,
      completion_tokens: 20,
      agent_calls: 3,
      by_agent: { hotel: { calls: 2, failures: 1, ms: 140 }, weather: { calls: 1, failures: 0, ms: 7 } },
    });
    expect(JSON.parse(JSON.stringify(usage))).toEqual(usage);
  });

  it('does not count a call that was never sent (the circuit was open, or offline)', () => {
    const usage = summariseTurnUsage({ calls: [call({ ok: false, attempts: 0, error: 'circuit_open' }), call({ promptTokens: 10, completionTokens: 2 })] }, []);
    expect(usage).toMatchObject({ model_calls: 1, prompt_tokens: 10, completion_tokens: 2 });
  });

  it('counts reported tokens by kind and model in switchboard_model_tokens_total', async () => {
    const metrics = createMetrics();
    recordModelTokens(metrics, [call({ promptTokens: 100, completionTokens: 20 }), call({ model: 'm2', promptTokens: 7, completionTokens: 3 }), call({ promptTokens: 9, tokensEstimated: true })]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('switchboard_model_tokens_total{kind="prompt",model="m1"} 100');
    expect(text).toContain('switchboard_model_tokens_total{kind="completion",model="m1"} 20');
    expect(text).toContain('switchboard_model_tokens_total{kind="prompt",model="m2"} 7');
  });
});
