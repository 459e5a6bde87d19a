import { describe, expect, it } from 'vitest';
import { readServeSettings, startSwitchboard } from './serve-command.js';
import type { CliIo } from './cli-io.js';

const io = (env: Record<string, string>): CliIo => ({ stdout: () => {}, stderr: () => {}, env, cwd: '/tmp' });

describe('readServeSettings', () => {
  it('refuses a REDIS_URL that is not redis:// or rediss://, naming the variable and what it expects', () => {
    for (const url of ['http://localhost:6379', 'localhost:6379', 'redis:/oops']) {
      expect(() => readServeSettings([], io({ DATABASE_URL: 'postgres://db/x', REDIS_URL: url, SWITCHBOARD_WORKERS: '1' }))).toThrow(/^REDIS_URL ".*": expected redis:\/\/host:port or rediss:\/\//);
    }
  });

  it('takes redis://, rediss:// and a socket path', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://user:pw@cache.internal:6380/2', 'REDIS://h', '/run/redis.sock']) {
      expect(readServeSettings([], io({ DATABASE_URL: 'postgres://db/x', REDIS_URL: url, SWITCHBOARD_WORKERS: '1' })).port).toBe(8080);
    }
  });

  it('does not echo a password in the message', () => {
    expect(() => readServeSettings([], io({ REDIS_URL: 'http://user:s3cret@h:1' }))).toThrow(/^(?!.*s3cret)/s);
  });

  it('refuses a LOG_LEVEL the logger does not know, listing the levels', () => {
    expect(() => readServeSettings([], io({ LOG_LEVEL: 'loud' }))).toThrow('LOG_LEVEL "loud": expected one of trace, debug, info, warn, error, fatal, silent');
    expect(readServeSettings([], io({ LOG_LEVEL: 'warn' })).port).toBe(8080);
  });

  it('reads a bad SWITCHBOARD_LEASE_TTL_MS as a usage mistake at once', () => {
    expect(() => readServeSettings([], io({ SWITCHBOARD_LEASE_TTL_MS: 'abc' }))).toThrow('invalid SWITCHBOARD_LEASE_TTL_MS "abc": expected a non-negative integer');
  });

  it('names the OpenTelemetry variable when its endpoint is not a URL', async () => {
    const settings = { config: '/nonexistent/registry.yaml', port: 0, host: '127.0.0.1', drainGraceMs: 0 };
    await expect(startSwitchboard(settings, io({ OTEL_EXPORTER_OTLP_ENDPOINT: 'garbage', DATABASE_URL: 'sqlite::memory:' }))).rejects.toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT \/ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: .*garbage/,
    );
  });

  it('warns that REDIS_URL is not used on SQLite, and not on PostgreSQL', () => {
    expect(readServeSettings([], io({ DATABASE_URL: 'sqlite:./x.db', REDIS_URL: 'redis://127.0.0.1:6379' })).warnings).toEqual([
      'REDIS_URL is set but not used: Redis shares rate limits, caches and signals between replicas on PostgreSQL (DATABASE_URL=postgres://…); on SQLite they stay in this process',
    ]);
    expect(readServeSettings([], io({ DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://127.0.0.1:6379', SWITCHBOARD_WORKERS: '1' })).warnings).toEqual([]);
  });
});
