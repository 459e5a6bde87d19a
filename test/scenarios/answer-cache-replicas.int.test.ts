/**
 * The answer cache across replicas: two Switchboards on one PostgreSQL (and,
 * in the second case, one Redis) — a question answered by replica A is
 * answered from cache by replica B, another session of another user, without
 * calling the agent. Entries hold no raw personal data and no user id. The
 * sample weather agent has `cache_ttl_s` (the answer cache's opt-in); its
 * own response cache is in process without Redis, so in the Postgres-only
 * case only the answer cache can spare replica B the call.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { ResponseState } from '../../src/events/index.js';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { silentLogger } from '../../src/logger.js';
import { createSwitchboard, type Switchboard } from '../../src/switchboard.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { createDatabaseFactory, deleteRedisPrefix, postgresAvailable, redisAvailable, redisPrefix, TEST_REDIS_URL } from '../support/services.js';
import { chatOverSse, sampleRegistry } from '../support/switchboard-harness.js';

const hasPostgres = await postgresAvailable();
const hasRedis = hasPostgres && (await redisAvailable());
const NOW = new Date(2026, 10, 22, 10, 0, 0);

const completeFinal = (events: readonly ResponseState[]) => events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true)!;

describe.skipIf(!hasPostgres)('answer cache across replicas', () => {
  const databases = createDatabaseFactory('answer_cache');
  const prefix = redisPrefix('answer_cache');
  const dir = mkdtempSync(join(tmpdir(), 'sb-answer-cache-'));
  const configPath = join(dir, 'agents_config.yaml');
  const running: { switchboard: Switchboard; server: RunningServer }[] = [];
  let weather: FakeAgent;
  let others: FakeAgent[];

  beforeAll(async () => {
    weather = await startFakeAgent((body) => {
      const { city, date } = (body as { inputs: { city: string; date: string } }).inputs;
      return sseReply({ result: { status: 'completed', output: { city, forecast: [{ date, condition: '晴', high: 8, low: -2 }] }, message: `${city}${date}晴。` } });
    });
    others = await Promise.all([1, 2, 3].map(() => startFakeAgent(jsonReply({ output: {} }))));
    writeFileSync(
      configPath,
      sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url }),
    );
  }, 60000);

  afterAll(async () => {
    for (const replica of running) {
      await replica.server.close();
      await replica.switchboard.close();
    }
    await Promise.all([weather, ...others].map((agent) => agent?.close()));
    await databases.dropAll();
    if (hasRedis) await deleteRedisPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  }, 60000);

  const startReplica = async (databaseUrl: string, redisUrl?: string): Promise<string> => {
    const switchboard = await createSwitchboard({ configPath, databaseUrl, redisUrl, redisPrefix: prefix, logger: silentLogger, env: {}, now: () => NOW, watch: false });
    const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
    running.push({ switchboard, server });
    return server.url;
  };

  it('replica B answers from the entry replica A kept (Postgres only)', async () => {
    const databaseUrl = await databases.create();
    const [a, b] = [await startReplica(databaseUrl), await startReplica(databaseUrl)];
    const calls = weather.calls.length;
    const first = await chatOverSse(a, '北京明天天气怎么样，我的手机 13812345678', { sessionId: 'rep-1', userId: 'rep-u1' });
    expect(completeFinal(first).metadata.state?.cached).toBeUndefined();
    // A question with personal data is kept per user: another user on B misses it...
    const other = await chatOverSse(b, '北京明天天气怎么样', { sessionId: 'rep-2', userId: 'rep-u2' });
    expect(completeFinal(other).metadata.state?.cached).toBeUndefined();
    expect(weather.calls.length).toBe(calls + 2);
    // ...and the plain question the second user asked is now answered by A for a third user.
    const third = await chatOverSse(a, '明天北京的天气如何？', { sessionId: 'rep-3', userId: 'rep-u3' });
    expect(completeFinal(third).metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls + 2);

    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const rows = (await client.query<{ text: string }>("SELECT kv_key || ' ' || value::text AS text FROM sb_kv WHERE kv_key LIKE 'answer:%'")).rows;
      expect(rows.length).toBe(2);
      for (const row of rows) {
        expect(row.text).not.toContain('13812345678');
        expect(row.text).not.toContain('rep-u');
      }
    } finally {
      await client.end();
    }
  }, 60000);

  it.skipIf(!hasRedis)('replica B answers from the entry replica A kept (Postgres and Redis)', async () => {
    const databaseUrl = await databases.create();
    const [a, b] = [await startReplica(databaseUrl, TEST_REDIS_URL), await startReplica(databaseUrl, TEST_REDIS_URL)];
    const calls = weather.calls.length;
    await chatOverSse(a, '上海明天天气怎么样', { sessionId: 'rep-r1', userId: 'rep-u1' });
    const hit = await chatOverSse(b, '上海明天天气怎么样', { sessionId: 'rep-r2', userId: 'rep-u2' });
    expect(completeFinal(hit).metadata.state?.cached).toBe(true);
    expect(weather.calls.length).toBe(calls + 1);
  }, 60000);
});
