/**
 * Usage per turn and turn records over the API (contract v4 "Usage", "Turn
 * records and the console"): a two-intent turn's `done` carries its usage; the
 * same turn is listed by `GET /v1/turns` and read whole by `GET /v1/turns/:id`
 * with its stages, plan, both calls, each input's source and the answer, the
 * phone number in the message masked; filters, cursors and bad input answer
 * as documented; admission needs an admin key within its tenant (another
 * tenant's turns are invisible), and with no keys only loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import { chatOverSse } from '../support/switchboard-harness.js';

const KEYS = ['admin-alpha=alpha', 'front-alpha=alpha', 'admin-beta=beta'];
const ADMIN = ['admin-alpha', 'admin-beta=beta'];
let running: DemoSwitchboard;
let url: string;

beforeAll(async () => {
  running = await startDemoSwitchboard({ apiKeys: KEYS, adminKeys: ADMIN });
  url = running.board.url;
}, 60_000);
afterAll(() => running?.close());

async function chat(key: string, query: string, sessionId: string) {
  const response = await fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, user_id: 'u13800138000', session_id: sessionId }),
  });
  const text = await response.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { metadata: { stage: string; state?: Record<string, unknown> } });
}

const get = (path: string, key?: string) => fetch(`${url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('turn records over the API', () => {
  let turnId: string;

  it('puts the usage on done and keeps the turn record, listed and read whole within the tenant', async () => {
    const events = await chat('front-alpha', '帮我订北京的酒店，明天入住，再告诉我北京明天的天气，电话 13912345678', 'console-s1');
    const done = events.at(-1)!;
    expect(done.metadata.stage).toBe('done');
    const usage = done.metadata.state!.usage as { model_calls: number; prompt_tokens: number; agent_calls: number; by_agent: Record<string, { calls: number; failures: number; ms: number }> };
    expect(usage).toMatchObject({ model_calls: 0, prompt_tokens: 0, completion_tokens: 0, agent_calls: 2 });
    expect(Object.keys(usage.by_agent).sort()).toEqual(['hotel_agent', 'weather_agent']);
    expect(usage.by_agent.hotel_agent).toMatchObject({ calls: 1, failures: 0 });
    turnId = done.metadata.state!.turn_id as string;

    const list = await get('/v1/turns', 'admin-alpha');
    expect(list.status).toBe(200);
    const page = (await list.json()) as { turns: Record<string, unknown>[]; next_cursor: string | null };
    expect(page.turns[0]).toMatchObject({ turn_id: turnId, session_id: 'console-s1', outcome: done.metadata.state!.outcome, usage });
    expect(page.turns[0]!.user_id).not.toContain('13800138000');
    expect(page.turns[0]!.agents).toEqual(expect.arrayContaining(['hotel_agent', 'weather_agent']));

    const detail = (await (await get(`/v1/turns/${turnId}`, 'admin-alpha')).json()) as Record<string, any>;
    expect(detail.query).not.toContain('13912345678');
    expect(JSON.stringify(detail)).not.toContain('13912345678');
    expect(detail.answer.length).toBeGreaterThan(0);
    expect(detail.stages.map((stage: { stage: string }) => stage.stage)).toEqual(expect.arrayContaining(['intent', 'plan', 'execute']));
    expect(detail.plan.tasks).toHaveLength(2);
    expect(detail.calls.map((call: { agent_id: string }) => call.agent_id).sort()).toEqual(['hotel_agent', 'weather_agent']);
    const hotel = detail.calls.find((call: { agent_id: string }) => call.agent_id === 'hotel_agent');
    expect(hotel.status).toBe('completed');
    expect(hotel.ms).toBeTypeOf('number');
    const city = hotel.inputs.find((input: { key: string }) => input.key === 'city');
    expect(city).toMatchObject({ value: '北京', source: { kind: 'user', turn_id: turnId, words: '北京' } });
  });

  it('filters, pages and refuses bad filters and cursors with a JSON error naming the field', async () => {
    await chat('front-alpha', '北京明天天气怎么样', 'console-s2');
    const ids = async (query: string) => ((await (await get(`/v1/turns${query}`, 'admin-alpha')).json()) as { turns: { turn_id: string; session_id: string }[] }).turns;
    expect((await ids('?session_id=console-s2')).map((turn) => turn.session_id)).toEqual(['console-s2']);
    expect((await ids('?agent=hotel_agent')).map((turn) => turn.turn_id)).toEqual([turnId]);
    expect(await ids('?since=2999-01-01T00:00:00Z')).toEqual([]);
    const first = (await (await get('/v1/turns?limit=1', 'admin-alpha')).json()) as { turns: { turn_id: string }[]; next_cursor: string };
    expect(first.turns).toHaveLength(1);
    const second = (await (await get(`/v1/turns?limit=1&cursor=${first.next_cursor}`, 'admin-alpha')).json()) as { turns: { turn_id: string }[]; next_cursor: string | null };
    expect(second.turns[0]!.turn_id).toBe(turnId);
    expect(second.next_cursor).toBeNull();
    for (const [query, field] of [
      ['?outcome=great', 'outcome'],
      ['?since=yesterday', 'since'],
      ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
      ['?limit=0', 'limit'],
      ['?agent=a%20b', 'agent'],
      ['?sesion_id=x', 'sesion_id'],
    ] as const) {
      const response = await get(`/v1/turns${query}`, 'admin-alpha');
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as { error: { code: string; details: { field: string } } }).error).toMatchObject({ code: 'BAD_REQUEST', details: { field } });
    }
    expect((await get('/v1/turns/turn_nope', 'admin-alpha')).status).toBe(404);
  });

  it('admits admin keys only, each within its own tenant', async () => {
    expect((await get('/v1/turns')).status).toBe(401);
    expect((await get('/v1/turns', 'front-alpha')).status).toBe(403);
    expect((await get(`/v1/turns/${turnId}`, 'front-alpha')).status).toBe(403);
    const beta = (await (await get('/v1/turns', 'admin-beta')).json()) as { turns: unknown[] };
    expect(beta.turns).toEqual([]);
    expect((await get(`/v1/turns/${turnId}`, 'admin-beta')).status).toBe(404);
  });
});

describe('turn records without API keys', () => {
  it('are served to loopback callers', async () => {
    const open = await startDemoSwitchboard({});
    try {
      await chatOverSse(open.board.url, '北京明天天气怎么样');
      const response = await fetch(`${open.board.url}/v1/turns`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { turns: unknown[] }).turns).toHaveLength(1);
    } finally {
      await open.close();
    }
  }, 60_000);
});
