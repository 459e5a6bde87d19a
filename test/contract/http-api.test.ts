/**
 * Contract §3 probes, registry snapshot and error answers over the real CLI
 * server, plus garbage input: after each abuse the server must still answer
 * `/healthz`, and no error body carries a stack trace.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { CLINIC_AGENT_IDS, CLINIC_TOKEN, clinicRegistry } from './clinic-registry.js';
import { freePort, spawnServer, turn, type ServerProcess } from './harness.js';

let server: ServerProcess;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-1' }, message: '好的' }));
  const dead = `http://127.0.0.1:${await freePort()}/invoke`;
  server = await spawnServer({
    registryYaml: clinicRegistry({ appointment: agent.url, report: dead, billing: agent.url, triage: dead, pharmacy: dead }),
    env: { CLINIC_TOKEN },
  });
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  await agent.close();
});

interface ErrorReply {
  status: number;
  text: string;
  body: { error?: { code?: unknown; message?: unknown } };
  headers: Headers;
}

async function send(path: string, init: RequestInit = {}): Promise<ErrorReply> {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  let body: ErrorReply['body'] = {};
  try {
    body = JSON.parse(text) as ErrorReply['body'];
  } catch {
    body = {};
  }
  return { status: response.status, text, body, headers: response.headers };
}

function postChat(body: string, headers: Record<string, string> = {}): Promise<ErrorReply> {
  return send('/v1/chat', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

function expectErrorShape(reply: ErrorReply, status: number | number[]): void {
  const statuses = Array.isArray(status) ? status : [status];
  expect(statuses, reply.text).toContain(reply.status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof reply.body.error?.code, reply.text).toBe('string');
  expect(typeof reply.body.error?.message, reply.text).toBe('string');
  expect(reply.text).not.toMatch(/at .*\.(ts|js):\d+/);
  expect(reply.text).not.toContain('node_modules');
}

async function expectAlive(): Promise<void> {
  const response = await fetch(`${server.url}/healthz`);
  expect(response.status).toBe(200);
}

describe('probes', () => {
  it('/healthz and /readyz answer 200 JSON', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const reply = await send(path);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });

  it('/metrics is Prometheus text and counts turns', async () => {
    await turn(server.url, { query: '你好', user_id: 'u-metrics', session_id: 'metrics-1' }, CLINIC_AGENT_IDS);
    const reply = await send('/metrics');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(reply.text).toMatch(/^# HELP /m);
    expect(reply.text).toMatch(/^# TYPE \S+ (counter|gauge|histogram|summary)/m);
    // Every sample line is `name{labels} value`.
    for (const line of reply.text.split('\n').filter((entry) => entry && !entry.startsWith('#'))) {
      expect(line).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEInfNa]+( \d+)?$/);
    }
  });

  it('GET / serves the chat page', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});

describe('GET /v1/agents', () => {
  it('shows public cards with enabled flags, version, loaded_at and last_error, and no secrets or endpoints', async () => {
    const reply = await send('/v1/agents');
    expect(reply.status).toBe(200);
    const body = JSON.parse(reply.text) as {
      version: unknown;
      loaded_at: unknown;
      last_error: unknown;
      agents: { id: string; name: string; description: string; enabled: boolean; required_semantic_keys: { key: string; widget: string }[]; depends_on: string[] }[];
    };
    expect(typeof body.version).toBe('string');
    expect((body.version as string).length).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(body.loaded_at as string))).toBe(false);
    expect(body.last_error).toBeNull();
    expect(body.agents.map((card) => card.id)).toEqual([...CLINIC_AGENT_IDS]);
    const enabled = Object.fromEntries(body.agents.map((card) => [card.id, card.enabled]));
    expect(enabled).toEqual({ appointment_agent: true, report_agent: true, billing_agent: true, triage_agent: true, pharmacy_agent: false });
    const appointment = body.agents[0]!;
    expect(appointment.name).toBe('门诊挂号');
    expect(appointment.required_semantic_keys.map((key) => [key.key, key.widget])).toEqual([
      ['department', 'department_picker'],
      ['visit_date', ''],
      ['phone', 'phone_input'],
    ]);
    expect(body.agents[2]!.depends_on).toEqual(['appointment_agent']);
    // "enabled/health": every card says how its agent is doing.
    for (const card of body.agents as unknown as { health?: { status?: unknown } }[]) expect(typeof card.health?.status).toBe('string');
    expect(reply.text).not.toContain(CLINIC_TOKEN);
    expect(reply.text).not.toContain('Bearer');
    expect(reply.text).not.toContain(agent.url);
  });
});

describe('errors', () => {
  it('404 JSON for an unknown route', async () => {
    expectErrorShape(await send('/v1/nothing-here'), 404);
    expectErrorShape(await send('/no/such/path'), 404);
  });

  it('400 names the bad field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ user_id: 'u1' }, 'query'],
      [{ query: 'hi' }, 'user_id'],
      [{ query: 42, user_id: 'u1' }, 'query'],
      [{ query: 'hi', user_id: ['u1'] }, 'user_id'],
      [{ query: 'hi', user_id: 'u1', session_id: 17 }, 'session_id'],
      [{ query: '', user_id: 'u1' }, 'query'],
      [{ query: 'hi', user_id: 'u1', session_id: 'has spaces and / slashes' }, 'session_id'],
    ];
    for (const [body, field] of cases) {
      const reply = await postChat(JSON.stringify(body));
      expectErrorShape(reply, 400);
      expect(String(reply.body.error!.message), JSON.stringify(body)).toContain(field);
    }
  });

  it('400 for invalid JSON and for a body that is not an object', async () => {
    for (const body of ['{"query": "hi", "user_id": ', 'null', '[1,2,3]', '"just a string"', '42', '{}']) {
      expectErrorShape(await postChat(body), 400);
    }
    await expectAlive();
  });

  it('400 or 415 for a non-JSON content type', async () => {
    expectErrorShape(await send('/v1/chat', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'query=hi' }), [400, 415]);
  });

  it('413 for a body over the limit; 400 for an over-long query that fits', async () => {
    const huge = JSON.stringify({ query: 'x'.repeat(200 * 1024), user_id: 'u1' });
    expectErrorShape(await postChat(huge), 413);
    const long = await postChat(JSON.stringify({ query: '挂号'.repeat(5000), user_id: 'u1' }));
    expectErrorShape(long, [400, 413]);
    if (long.status === 400) expect(String(long.body.error!.message)).toContain('query');
    await expectAlive();
  });

  it('wrong method on a known route is a JSON error', async () => {
    const reply = await send('/v1/chat', { method: 'GET' });
    expectErrorShape(reply, [404, 405]);
  });
});

describe('garbage input', () => {
  it('survives odd but valid JSON, strange characters and a cut connection', async () => {
    const odd: Record<string, unknown>[] = [
      { query: 'hi', user_id: 'u1', extra: { deep: [[[[[[[[[[{}]]]]]]]]]] } },
      { query: '\u0000\u0001\u0002 挂号 \uFFFF \uD83D\uDE00', user_id: 'u-garbage' },
      { query: '<script>alert(1)</script> RPT-000000', user_id: 'u-garbage' },
      { query: '${CLINIC_TOKEN} 挂号 ' + '%s%n'.repeat(50), user_id: 'u-garbage' },
      { query: '   ', user_id: 'u-garbage' },
      { query: 'hi', user_id: 'u-garbage', session_id: 'x'.repeat(500) },
      { query: 'hi', user_id: 'x'.repeat(500) },
      { query: 'hi', user_id: 'u-garbage', constructor: { prototype: { polluted: true } }, toString: 'x', hasOwnProperty: 1 },
    ];
    for (const body of odd) {
      const response = await fetch(`${server.url}/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect([200, 400], text).toContain(response.status);
      expect(text).not.toContain(CLINIC_TOKEN);
    }
    // A request cut in the middle of its body.
    await new Promise<void>((resolve) => {
      const url = new URL(`${server.url}/v1/chat`);
      const request = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
      request.on('error', () => resolve());
      request.write('{"query": "hi", "us');
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 100);
    });
    // A client that leaves in the middle of a stream.
    const controller = new AbortController();
    const pending = fetch(`${server.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '帮我挂明天内科的号，电话13800138000', user_id: 'u-garbage' }),
      signal: controller.signal,
    }).then((response) => response.body?.getReader().read());
    setTimeout(() => controller.abort(), 20);
    await pending.catch(() => undefined);
    const hugeQueryString = await send(`/v1/sessions/abc/messages?user_id=${'u'.repeat(20000)}`);
    expect(hugeQueryString.status).toBeGreaterThanOrEqual(400);
    expect(hugeQueryString.status).toBeLessThan(500);
    await expectAlive();
    await turn(server.url, { query: '你好', user_id: 'u-after', session_id: 'after-garbage' }, CLINIC_AGENT_IDS);
  });

  it('the prototype of nothing is polluted by a __proto__ body', async () => {
    const reply = await postChat('{"query":"你好","user_id":"u-proto","__proto__":{"isAdmin":true}}', { accept: 'application/json' });
    expect(reply.status).toBe(200);
    await expectAlive();
  });
});
