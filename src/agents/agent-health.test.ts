import { describe, expect, it } from 'vitest';
import { createAgentHealthTracker } from './agent-health.js';

describe('agent health', () => {
  it('is unknown before any call, failing after failures and ok again after a success', () => {
    const health = createAgentHealthTracker(() => new Date('2026-11-22T10:00:00Z'));
    expect(health.of('a').status).toBe('unknown');
    health.record('a', 'timeout');
    health.record('a', 'http_status');
    expect(health.of('a')).toEqual({ status: 'failing', consecutive_failures: 2, last_call_at: '2026-11-22T10:00:00.000Z', last_outcome: 'http_status' });
    health.record('a', 'completed');
    expect(health.of('a')).toMatchObject({ status: 'ok', consecutive_failures: 0 });
    expect(health.of('b').status).toBe('unknown');
  });

  it('returns copies', () => {
    const health = createAgentHealthTracker();
    health.record('a', 'completed');
    health.of('a').status = 'failing';
    expect(health.of('a').status).toBe('ok');
  });
});
