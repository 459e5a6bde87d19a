/**
 * `SWITCHBOARD_API_KEYS` (docs/api.md#environment) on a server started the way a user
 * starts it from a checkout: `npm run cli -- serve --config F --port 0`,
 * with `PORT` and `SWITCHBOARD_CONFIG` also set to prove the flags win.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { CLINIC_AGENT_IDS, CLINIC_TOKEN, clinicRegistry } from './clinic-registry.js';
import { freePort, spawnServer, turn, type ServerProcess } from './harness.js';

let server: ServerProcess;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-1' } }));
  const dead = `http://127.0.0.1:${await freePort()}/invoke`;
  server = await spawnServer({
    registryYaml: clinicRegistry({ appointment: agent.url, report: dead, billing: dead, triage: dead, pharmacy: dead }),
    env: { CLINIC_TOKEN, SWITCHBOARD_API_KEYS: 'key-one, key-two', PORT: '1', SWITCHBOARD_CONFIG: '/nonexistent/agents_config.yaml' },
    viaNpm: true,
  });
});

afterAll(async () => {
  await server?.stop();
  await agent.close();
});

describe('API keys', () => {
  it('health endpoints stay open; /metrics needs a key', async () => {
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer key-one' } })).status).toBe(200);
  });

  it('401 without a key (JSON error), 403 with a wrong key', async () => {
    for (const path of ['/v1/agents', '/v1/sessions/s1/messages?user_id=u1']) {
      const missing = await fetch(`${server.url}${path}`);
      expect(missing.status).toBe(401);
      const body = (await missing.json()) as { error: { code: string; message: string } };
      expect(typeof body.error.code).toBe('string');
      expect(typeof body.error.message).toBe('string');
      const wrong = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer key-three' } });
      expect(wrong.status).toBe(403);
    }
    const chat = await fetch(`${server.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '你好', user_id: 'u1' }),
    });
    expect(chat.status).toBe(401);
    const basic = await fetch(`${server.url}/v1/agents`, { headers: { authorization: 'Basic a2V5LW9uZTp4' } });
    expect([401, 403]).toContain(basic.status);
  });

  it('every configured key works (list is comma separated, spaces trimmed)', async () => {
    for (const key of ['key-one', 'key-two']) {
      const response = await fetch(`${server.url}/v1/agents`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
    }
    await turn(server.url, { query: '你好', user_id: 'u-auth', session_id: 'auth-1' }, CLINIC_AGENT_IDS, { authorization: 'Bearer key-two' });
  });

  it('an unknown /v1 route still needs the key or answers 404, never 200', async () => {
    const response = await fetch(`${server.url}/v1/unknown`);
    expect([401, 404]).toContain(response.status);
  });
});

describe('process', () => {
  // A process manager stopping `npm run cli -- serve` with SIGTERM to npm
  // alone must stop the server too (the script `exec`s tsx, so the signal is
  // not lost in an intermediate shell).
  it('SIGTERM to the npm process alone stops the server', async () => {
    process.kill(server.child.pid!, 'SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after = await fetch(`${server.url}/healthz`).then(
      () => 'answered',
      () => 'refused',
    );
    expect(after).toBe('refused');
  });
});
