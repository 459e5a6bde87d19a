import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

describe('createMetrics', () => {
  it('gives every call its own registry with all instruments registered', async () => {
    const first = createMetrics();
    const second = createMetrics();
    first.agentCalls.inc({ agent: 'hotel_agent', outcome: 'completed' });
    const firstText = await first.registry.metrics();
    const secondText = await second.registry.metrics();
    expect(firstText).toContain('switchboard_agent_calls_total{agent="hotel_agent",outcome="completed"} 1');
    expect(secondText).not.toContain('agent="hotel_agent"');
    for (const name of [
      'switchboard_http_requests_total',
      'switchboard_turns_total',
      'switchboard_turn_duration_seconds',
      'switchboard_agent_call_duration_seconds',
      'switchboard_llm_calls_total',
      'switchboard_llm_tokens_total',
      'switchboard_registry_reloads_total',
      'switchboard_intent_fallbacks_total',
      'switchboard_active_streams',
    ]) {
      expect(secondText).toContain(`# TYPE ${name}`);
    }
    expect(firstText).toContain('process_cpu_seconds_total');
  });

  it('can leave out the process metrics', async () => {
    const text = await createMetrics({ defaultMetrics: false }).registry.metrics();
    expect(text).not.toContain('process_cpu_seconds_total');
    expect(text).toContain('switchboard_turns_total');
  });
});
