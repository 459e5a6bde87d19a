/**
 * Scoped API keys (docs/api.md#environment, `SWITCHBOARD_API_KEYS` entries
 * `key=tenant`) on a served process: two tenants whose callers use the very
 * same `session_id` and `user_id` never read or write each other's sessions,
 * transcripts, resumable events, parked confirmations or profiles; another
 * tenant's session answers 404 as if it did not exist; `/metrics` needs a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { chatSse, finalOf, spawnServer, stage, turn, type ContractEvent, type ServerProcess } from './harness.js';

const AGENT_IDS = ['weather_agent', 'refund_agent'];
const ALPHA = { authorization: 'Bearer key-alpha' };
const ALPHA_TWO = { authorization: 'Bearer key-alpha-2' };
const BETA = { authorization: 'Bearer key-beta' };
const PLAIN = { authorization: 'Bearer key-plain' };

function registry(weatherUrl: string, refundUrl: string): string {
  return `version: 1
agents:
  - id: weather_agent
    name: 天气查询
    description: 查询城市天气 city weather
    keywords: [天气, weather]
    endpoint: { url: "${weatherUrl}", retries: 0 }
    required_semantic_keys:
      - { key: city, description: 城市, remember: true, extract: { enum: [北京, 上海] } }
  - id: refund_agent
    name: 退款服务
    description: 订单退款 refund an order
    keywords: [退款, refund]
    side_effects: true
    endpoint: { url: "${refundUrl}", retries: 0 }
    required_semantic_keys:
      - { key: order_id, description: 订单号, extract: { pattern: "ORD-[0-9]{6}" } }
`;
}

interface Messages {
  session_id: string;
  messages: { role: string; content: string; turn_id?: string }[];
}

async function get(server: ServerProcess, path: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

function errorCode(body: unknown): string | undefined {
  return (body as { error?: { code?: string } }).error?.code;
}

function confirmationTaskIds(events: readonly ContractEvent[]): string[] {
  const planDone = stage(events, 'plan_done')[0];
  return ((planDone?.metadata.confirmation as { task_id: string }[] | undefined) ?? []).map((item) => item.task_id);
}

let server: ServerProcess;
let weather: FakeAgent;
let refund: FakeAgent;

beforeAll(async () => {
  weather = await startFakeAgent(jsonReply({ output: { forecast: 'sunny' }, message: '晴' }));
  refund = await startFakeAgent(jsonReply({ output: { refunded: true }, message: '已退款' }));
  server = await spawnServer({
    registryYaml: registry(weather.url, refund.url),
    env: { SWITCHBOARD_API_KEYS: 'key-alpha=alpha, key-alpha-2=alpha, key-beta=beta, key-plain' },
  });
});

afterAll(async () => {
  await server?.stop();
  await weather?.close();
  await refund?.close();
});

describe('two tenants, same session_id and user_id', () => {
  let alphaTurnId: string;

  it('each tenant gets its own session under the same ids; neither transcript holds the other\'s turn', async () => {
    const alpha = await turn(server.url, { query: '北京天气怎么样', user_id: 'u1', session_id: 's1' }, AGENT_IDS, ALPHA);
    alphaTurnId = String(alpha[0]!.metadata.turn_id);
    expect(weather.calls).toHaveLength(1);
    const beta = await turn(server.url, { query: '上海的天气', user_id: 'u1', session_id: 's1' }, AGENT_IDS, BETA);
    expect(beta.at(-1)!.session_id).toBe('s1');
    expect(weather.calls).toHaveLength(2);
    // Sub-agents see the plain user id, never a tenant-qualified one.
    for (const call of weather.calls) expect((call.body as { user_id: string }).user_id).toBe('u1');

    const alphaHistory = await get(server, '/v1/sessions/s1/messages?user_id=u1', ALPHA);
    const betaHistory = await get(server, '/v1/sessions/s1/messages?user_id=u1', BETA);
    expect(alphaHistory.status).toBe(200);
    expect(betaHistory.status).toBe(200);
    const alphaText = JSON.stringify((alphaHistory.body as Messages).messages);
    const betaText = JSON.stringify((betaHistory.body as Messages).messages);
    expect((alphaHistory.body as Messages).messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['北京天气怎么样']);
    expect((betaHistory.body as Messages).messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['上海的天气']);
    expect(alphaText).not.toContain('上海');
    expect(betaText).not.toContain('北京');
    // Another key of the same tenant sees the same session.
    const sameTenant = await get(server, '/v1/sessions/s1/messages?user_id=u1', ALPHA_TWO);
    expect(sameTenant.body).toEqual(alphaHistory.body);
  });

  it("another tenant's session answers 404 (as if absent) on read, resume and cancel; another user of the same tenant 403", async () => {
    await turn(server.url, { query: '北京天气', user_id: 'u9', session_id: 'alpha-only' }, AGENT_IDS, ALPHA);
    for (const headers of [BETA, PLAIN]) {
      const read = await get(server, '/v1/sessions/alpha-only/messages?user_id=u9', headers);
      expect(read.status).toBe(404);
      expect(errorCode(read.body)).toBe('SESSION_NOT_FOUND');
      const resume = await get(server, '/v1/sessions/alpha-only/stream?user_id=u9', headers);
      expect(resume.status).toBe(404);
      const cancel = await fetch(`${server.url}/v1/sessions/alpha-only/cancel?user_id=u9`, { method: 'POST', headers });
      expect(cancel.status).toBe(404);
      await cancel.text();
    }
    // Same tenant, another user: the session exists for someone else here.
    const other = await get(server, '/v1/sessions/alpha-only/messages?user_id=u2', ALPHA);
    expect(other.status).toBe(403);
  });

  it("a Last-Event-ID of another tenant's turn on the same session id resumes nothing", async () => {
    const own = await get(server, '/v1/sessions/s1/stream?user_id=u1', BETA);
    expect(own.status).toBe(200);
    expect(String(own.body)).not.toContain(alphaTurnId);
    const response = await fetch(`${server.url}/v1/sessions/s1/stream?user_id=u1`, { headers: { ...BETA, 'last-event-id': `${alphaTurnId}:1` } });
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('北京');
    const mine = await fetch(`${server.url}/v1/sessions/s1/stream?user_id=u1`, { headers: { ...ALPHA, 'last-event-id': `${alphaTurnId}:1` } });
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain(`id: ${alphaTurnId}:2`);
  });

  it("a confirmation from another tenant never runs a parked side effect, by task id or by a yes word", async () => {
    const parked = await turn(server.url, { query: '帮我退款，订单 ORD-123456', user_id: 'u1', session_id: 'pay-1' }, AGENT_IDS, ALPHA);
    const [taskId] = confirmationTaskIds(parked);
    expect(taskId).toBeTruthy();
    expect(refund.calls).toHaveLength(0);

    const byId = await chatSse(server.url, { confirm: [taskId], user_id: 'u1', session_id: 'pay-1' }, BETA);
    expect(byId.status).toBe(200);
    expect(stage(byId.events, 'agent_start')).toHaveLength(0);
    const byWord = await chatSse(server.url, { query: '确认', user_id: 'u1', session_id: 'pay-1' }, BETA);
    expect(byWord.status).toBe(200);
    expect(stage(byWord.events, 'agent_start')).toHaveLength(0);
    expect(refund.calls).toHaveLength(0);

    // The owner's confirmation still works afterwards: the other tenant changed nothing.
    const confirmed = await turn(server.url, { confirm: [taskId], user_id: 'u1', session_id: 'pay-1' }, AGENT_IDS, ALPHA);
    expect(refund.calls).toHaveLength(1);
    expect(finalOf(confirmed).content).toContain('已退款');
  });

  it('an idempotency key of one tenant never replays the other tenant\'s turn', async () => {
    const key = { 'idempotency-key': 'same-key-1' };
    const first = await turn(server.url, { query: '北京天气', user_id: 'u1', session_id: 'idem-1' }, AGENT_IDS, { ...ALPHA, ...key });
    const other = await turn(server.url, { query: '上海天气', user_id: 'u1', session_id: 'idem-1' }, AGENT_IDS, { ...BETA, ...key });
    expect(other[0]!.metadata.turn_id).not.toBe(first[0]!.metadata.turn_id);
    const repeat = await turn(server.url, { query: '北京天气', user_id: 'u1', session_id: 'idem-1' }, AGENT_IDS, { ...ALPHA, ...key });
    expect(repeat[0]!.metadata.turn_id).toBe(first[0]!.metadata.turn_id);
  });

  it("profiles are per tenant: reading or deleting u1's profile with the other tenant's key never touches it", async () => {
    const alphaProfile = await get(server, '/v1/users/u1/profile?user_id=u1', ALPHA);
    expect(alphaProfile.status).toBe(200);
    const alphaFacts = (alphaProfile.body as { facts: { key: string; value: unknown }[] }).facts;
    expect(alphaFacts).toContainEqual(expect.objectContaining({ key: 'city', value: '北京' }));

    const betaProfile = await get(server, '/v1/users/u1/profile?user_id=u1', BETA);
    expect(betaProfile.status).toBe(200);
    expect(JSON.stringify(betaProfile.body)).not.toContain('北京');
    expect((betaProfile.body as { user_id: string }).user_id).toBe('u1');

    const forget = await fetch(`${server.url}/v1/users/u1/profile?user_id=u1&all=true`, { method: 'DELETE', headers: BETA });
    expect(forget.status).toBe(200);
    const forgotten = (await forget.json()) as { deleted: { sessions: number } };
    expect(forgotten.deleted.sessions).toBeGreaterThan(0);
    expect((await get(server, '/v1/sessions/s1/messages?user_id=u1', BETA)).status).toBe(404);

    // Alpha's u1 is untouched: profile and sessions.
    expect((await get(server, '/v1/users/u1/profile?user_id=u1', ALPHA)).body).toEqual(alphaProfile.body);
    expect((await get(server, '/v1/sessions/s1/messages?user_id=u1', ALPHA)).status).toBe(200);
  });
});

describe('/metrics with keys on', () => {
  it('401 without a key, 403 with a wrong one, 200 with any valid key; the probes stay open', async () => {
    const missing = await fetch(`${server.url}/metrics`);
    expect(missing.status).toBe(401);
    expect(errorCode(await missing.json())).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(403);
    await wrong.text();
    for (const headers of [ALPHA, BETA, PLAIN]) {
      const response = await fetch(`${server.url}/metrics`, { headers });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('# TYPE');
    }
    for (const path of ['/healthz', '/readyz']) expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
  });
});
