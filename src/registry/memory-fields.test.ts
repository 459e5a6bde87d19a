import { describe, expect, it } from 'vitest';
import { loadRegistryText } from './load-registry.js';

const agent = (extra: string) => `version: 1
agents:
  - id: weather_agent
    name: 天气查询
    description: 天气
    endpoint: { url: http://127.0.0.1:7104/invoke }
${extra}`;

describe('registry: cache_ttl_s, side_effects, supervisor.verify, answer_cache_ttl_s', () => {
  it('reads cache_ttl_s on a read-only agent and the supervisor defaults', () => {
    const result = loadRegistryText(agent('    cache_ttl_s: 300\n'), 'f.yaml', { env: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.snapshot.byId.get('weather_agent')?.cacheTtlS).toBe(300);
    expect(result.snapshot.byId.get('weather_agent')?.sideEffects).toBeUndefined();
    expect(result.snapshot.supervisor.verify).toEqual({ enabled: true, maxRetries: 1, judge: 'on_doubt' });
    expect(result.snapshot.supervisor.answerCacheTtlS).toBe(300);
  });

  it('rejects side_effects together with cache_ttl_s, pointing at cache_ttl_s', () => {
    const result = loadRegistryText(agent('    side_effects: true\n    cache_ttl_s: 60\n'), 'f.yaml', { env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]).toMatchObject({ pointer: '/agents/0/cache_ttl_s', line: 8 });
    expect(result.issues[0]!.message).toMatch(/side_effects.*cache_ttl_s/);
  });

  it('rejects a cache_ttl_s that is not a positive integer', () => {
    const result = loadRegistryText(agent('    cache_ttl_s: 0\n'), 'f.yaml', { env: {} });
    expect(result.ok).toBe(false);
  });

  it('reads supervisor.verify and answer_cache_ttl_s', () => {
    const yaml = `version: 1
supervisor:
  verify: { enabled: false, max_retries: 2 }
  answer_cache_ttl_s: 0
agents: []
`;
    const result = loadRegistryText(yaml, 'f.yaml', { env: {} });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.snapshot.supervisor.verify).toEqual({ enabled: false, maxRetries: 2, judge: 'on_doubt' });
    expect(result.snapshot.supervisor.answerCacheTtlS).toBe(0);
  });
});
