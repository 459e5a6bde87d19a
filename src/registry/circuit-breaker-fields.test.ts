import { describe, expect, it } from 'vitest';
import { loadRegistryText } from './load-registry.js';

const registry = (supervisor: string, agentExtra: string, endpointExtra = '') => `version: 1
${supervisor}agents:
  - id: weather_agent
    name: 天气查询
    description: 天气
    endpoint:
      url: http://127.0.0.1:7104/invoke
${endpointExtra}${agentExtra}`;

describe('registry: circuit_breaker and stale_if_error_s', () => {
  it('gives every endpoint the default breaker (seed 001: half the calls failing, paused for five minutes)', () => {
    const result = loadRegistryText(registry('', ''), 'f.yaml', { env: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.snapshot.byId.get('weather_agent')?.endpoint.circuitBreaker).toEqual({ enabled: true, errorRate: 0.5, minCalls: 10, windowS: 60, openS: 300 });
  });

  it('lays the endpoint block over the supervisor block over the defaults', () => {
    const result = loadRegistryText(
      registry('supervisor:\n  circuit_breaker: { min_calls: 20, open_s: 60 }\n', '', '      circuit_breaker: { error_rate: 0.8, open_s: 30 }\n'),
      'f.yaml',
      { env: {} },
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.snapshot.supervisor.circuitBreaker).toEqual({ enabled: true, errorRate: 0.5, minCalls: 20, windowS: 60, openS: 60 });
    expect(result.snapshot.byId.get('weather_agent')?.endpoint.circuitBreaker).toEqual({ enabled: true, errorRate: 0.8, minCalls: 20, windowS: 60, openS: 30 });
  });

  it('refuses an error rate outside (0, 1] and unknown fields, naming the field', () => {
    for (const block of ['{ error_rate: 0 }', '{ error_rate: 1.5 }', '{ min_calls: 0 }', '{ open_after: 3 }']) {
      const result = loadRegistryText(registry('', '', `      circuit_breaker: ${block}\n`), 'f.yaml', { env: {} });
      expect(result.ok, block).toBe(false);
      if (result.ok) continue;
      expect(result.issues[0]!.pointer).toMatch(/^\/agents\/0\/endpoint\/circuit_breaker/);
    }
  });

  it('reads stale_if_error_s on a cached read-only agent', () => {
    const result = loadRegistryText(registry('', '    cache_ttl_s: 60\n    stale_if_error_s: 3600\n'), 'f.yaml', { env: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.snapshot.byId.get('weather_agent')?.staleIfErrorS).toBe(3600);
  });

  it('refuses stale_if_error_s without cache_ttl_s, and on a side-effect agent', () => {
    const withoutCache = loadRegistryText(registry('', '    stale_if_error_s: 3600\n'), 'f.yaml', { env: {} });
    expect(withoutCache.ok).toBe(false);
    if (!withoutCache.ok) {
      expect(withoutCache.issues[0]).toMatchObject({ pointer: '/agents/0/stale_if_error_s' });
      expect(withoutCache.issues[0]!.message).toMatch(/without cache_ttl_s/);
    }
    const write = loadRegistryText(registry('', '    side_effects: true\n    stale_if_error_s: 3600\n'), 'f.yaml', { env: {} });
    expect(write.ok).toBe(false);
    if (!write.ok) expect(write.issues.map((issue) => issue.message).join('\n')).toMatch(/side_effects: true and stale_if_error_s/);
  });
});
