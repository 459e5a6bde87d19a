/**
 * A parked task's personal values across replicas (docs/api.md#environment scale-out,
 * §7): a registration parked on replica A with a phone number, missing its
 * store, is completed on replica B. With the same SWITCHBOARD_DATA_KEY, B
 * sends the agent the real phone; no Postgres table holds it readable. A
 * replica with another key cannot open the seal and asks for the phone again
 * instead of sending a masked one. Without SWITCHBOARD_DATA_KEY the replicas
 * share the key kept in the database, so B still sends the real phone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { silentLogger } from '../../src/logger.js';
import { createSwitchboard, type Switchboard } from '../../src/switchboard.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { createDatabaseFactory, postgresAvailable } from '../support/services.js';
import { chatOverSse, stageEvents } from '../support/switchboard-harness.js';

const hasPostgres = await postgresAvailable();
const PHONE = '13912345678';

describe.skipIf(!hasPostgres)('parked personal values across replicas', () => {
  const databases = createDatabaseFactory('parked_pii');
  const dir = mkdtempSync(join(tmpdir(), 'sb-parked-pii-'));
  const configPath = join(dir, 'agents_config.yaml');
  const running: { switchboard: Switchboard; server: RunningServer }[] = [];
  let member: FakeAgent;

  beforeAll(async () => {
    member = await startFakeAgent(jsonReply({ output: { member_id: 'MB-1' }, message: '登记成功' }));
    writeFileSync(
      configPath,
      `version: 1
agents:
  - id: member_agent
    name: 会员登记
    description: 会员登记 register a member at a store
    keywords: [登记, 会员]
    endpoint: { url: "${member.url}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
      - { key: store, description: 门店, extract: { enum: [北京店, 上海店] } }
`,
    );
  }, 60000);

  afterAll(async () => {
    for (const replica of running) {
      await replica.server.close();
      await replica.switchboard.close();
    }
    await member.close();
    await databases.dropAll();
    rmSync(dir, { recursive: true, force: true });
  }, 60000);

  /** A replica with `dataKey` as SWITCHBOARD_DATA_KEY, or without the variable when undefined. */
  const startReplica = async (databaseUrl: string, dataKey: string | undefined): Promise<string> => {
    const env = dataKey === undefined ? {} : { SWITCHBOARD_DATA_KEY: dataKey };
    const switchboard = await createSwitchboard({ configPath, databaseUrl, logger: silentLogger, env, watch: false });
    const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
    running.push({ switchboard, server });
    return server.url;
  };

  /** Every row of every table of the database, as text. */
  const allRows = async (databaseUrl: string): Promise<string> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ schemaname: string; tablename: string }>("SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')");
      const texts: string[] = [];
      for (const { schemaname, tablename } of tables.rows) {
        const rows = await client.query(`SELECT * FROM "${schemaname}"."${tablename}"`);
        for (const row of rows.rows) texts.push(JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('utf8') : value)));
      }
      return texts.join('\n');
    } finally {
      await client.end();
    }
  };

  it('parks on A, completes on B with the real phone; nothing readable at rest', async () => {
    const databaseUrl = await databases.create();
    const [a, b] = [await startReplica(databaseUrl, 'shared-key-1'), await startReplica(databaseUrl, 'shared-key-1')];
    await chatOverSse(a, `帮我登记会员，手机 ${PHONE}`, { sessionId: 'rp-1', userId: 'rp-u' });
    expect(member.calls).toHaveLength(0);
    const parked = await allRows(databaseUrl);
    expect(parked).toContain('139****5678');
    expect(parked).not.toContain(PHONE);

    await chatOverSse(b, '北京店', { sessionId: 'rp-1', userId: 'rp-u' });
    expect(member.calls).toHaveLength(1);
    expect((member.calls[0]!.body as { inputs: Record<string, unknown> }).inputs).toEqual({ phone: PHONE, store: '北京店' });
    expect(await allRows(databaseUrl)).not.toContain(PHONE);
  }, 60000);

  it('a replica with another key asks for the phone again rather than sending a masked one', async () => {
    const databaseUrl = await databases.create();
    const [a, c] = [await startReplica(databaseUrl, 'key-a'), await startReplica(databaseUrl, 'key-c')];
    const before = member.calls.length;
    await chatOverSse(a, `帮我登记会员，手机 ${PHONE}`, { sessionId: 'rp-2', userId: 'rp-u' });
    const events = await chatOverSse(c, '北京店', { sessionId: 'rp-2', userId: 'rp-u' });
    expect(member.calls.length).toBe(before);
    const asked = stageEvents(events, 'plan_done').flatMap((event) => event.metadata.semantic_info ?? []).flatMap((info) => info.keys);
    expect(asked).toContain('phone');
  }, 60000);

  it('without SWITCHBOARD_DATA_KEY, replicas share the key kept in the database: parks on A, completes on B with the real phone', async () => {
    const databaseUrl = await databases.create();
    // Started together, so both race to draw the deployment's key.
    const [a, b] = await Promise.all([startReplica(databaseUrl, undefined), startReplica(databaseUrl, undefined)]);
    const before = member.calls.length;
    await chatOverSse(a, `帮我登记会员，手机 ${PHONE}`, { sessionId: 'rp-3', userId: 'rp-u' });
    expect(member.calls.length).toBe(before);
    expect(await allRows(databaseUrl)).not.toContain(PHONE);

    await chatOverSse(b, '上海店', { sessionId: 'rp-3', userId: 'rp-u' });
    expect(member.calls.slice(before).map((call) => (call.body as { inputs: unknown }).inputs)).toEqual([{ phone: PHONE, store: '上海店' }]);
    const rows = await allRows(databaseUrl);
    expect(rows).not.toContain(PHONE);
    expect(rows).toContain('switchboard:data-key:v1');
  }, 60000);
});
