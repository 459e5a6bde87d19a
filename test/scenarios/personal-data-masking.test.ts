/**
 * CONTRACT §7: a scripted session full of personal data (mobile, ID card,
 * bank card, e-mail and a registry-declared member number); afterwards the
 * whole log output and every database file are searched for each raw value.
 * The sub-agent must still have received the real values of its declared keys.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { createLogger } from '../../src/logger.js';
import { createPiiMasking } from '../../src/privacy/index.js';
import { createSwitchboard, type Switchboard } from '../../src/switchboard.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { chatOverSse, finalEvent } from '../support/switchboard-harness.js';

const RAW = {
  mobile: '13812345678',
  idCard: '11010519491231002X',
  bankCard: '6222021234567890128',
  email: 'zhang.san@example.com',
  member: 'M20261122',
};

function registry(url: string): string {
  return `version: 1
supervisor:
  pii_patterns: [{ name: member_no, pattern: "M[0-9]{8}" }]
agents:
  - id: contact_agent
    name: 会员登记
    description: 会员资料登记 register a member's contact details
    keywords: [登记, 会员, register]
    endpoint: { url: "${url}", retries: 0 }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
      - { key: email, description: 邮箱, extract: { type: email } }
`;
}

describe('personal data never lands raw in logs or the database', () => {
  let dir: string;
  let agent: FakeAgent;
  let switchboard: Switchboard;
  let server: RunningServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-pii-'));
    agent = await startFakeAgent((body) =>
      jsonReply({ output: { registered: true, echo: JSON.stringify(body) }, message: `已登记 ${RAW.mobile} / ${RAW.email}，身份证 ${RAW.idCard}，卡 ${RAW.bankCard}，会员 ${RAW.member}` }),
    );
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, registry(agent.url));
    const masking = createPiiMasking();
    const logger = createLogger({
      level: 'debug',
      masker: masking,
      destination: new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString('utf8')), done()) }),
    });
    switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger, masking, env: {}, watch: false });
    server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
  });

  afterAll(async () => {
    await agent.close();
    if (!process.env.KEEP_PII_DIR) rmSync(dir, { recursive: true, force: true });
    else console.log('DIR', dir);
  });

  it('masks every kind in logs, transcript, events, tasks and checkpoints; the agent gets the real values', async () => {
    const session = { sessionId: 'pii-1', userId: 'u-pii' };
    const first = await chatOverSse(
      server.url,
      `帮我登记会员，手机 ${RAW.mobile}，邮箱 ${RAW.email}，身份证 ${RAW.idCard}，银行卡 ${RAW.bankCard}，会员号 ${RAW.member}`,
      session,
    );
    expect(finalEvent(first).content.length).toBeGreaterThan(0);
    expect(agent.calls).toHaveLength(1);
    const sent = agent.calls[0]!.body as { inputs: Record<string, string> };
    expect(sent.inputs).toMatchObject({ phone: RAW.mobile, email: RAW.email });
    await chatOverSse(server.url, `转人工，我的卡号是 ${RAW.bankCard}`, session);
    const history = await (await fetch(`${server.url}/v1/sessions/pii-1/messages?user_id=u-pii`)).text();
    await server.close();
    await switchboard.close();

    const logText = logLines.join('');
    expect(logLines.length).toBeGreaterThan(0);
    const files = readdirSync(dir).filter((name) => name.startsWith('switchboard.db'));
    expect(files.length).toBeGreaterThan(0);
    const database = Buffer.concat(files.map((name) => readFileSync(join(dir, name))));
    for (const [kind, value] of Object.entries(RAW)) {
      expect(logText.includes(value), `${kind} raw in the logs`).toBe(false);
      expect(database.includes(Buffer.from(value, 'utf8')), `${kind} raw in the database`).toBe(false);
      expect(history.includes(value), `${kind} raw in the stored transcript`).toBe(false);
    }
    expect(history).toContain('138****5678');
    expect(history).toContain('[member_no]');
  });
});
