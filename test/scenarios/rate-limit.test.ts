/**
 * supervisor.rate_limit: a token bucket per user (user_id when keys are off), 429
 * RATE_LIMITED with retry-after, other users unaffected, limits hot-reloadable.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedRegistry } from '../../src/registry/watch-registry.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

function registry(url: string, supervisor: string): string {
  return `version: 1
${supervisor}agents:
  - id: echo_agent
    name: 回声服务
    description: 回声 echo
    keywords: [回声, echo]
    endpoint: { url: "${url}", retries: 0 }
`;
}

async function post(board: TestSwitchboard, userId: string): Promise<Response> {
  return fetch(`${board.url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: '你好', user_id: userId }),
  });
}

describe('rate limit', () => {
  let board: TestSwitchboard | undefined;
  let agent: FakeAgent | undefined;
  afterEach(async () => {
    await board?.close();
    await agent?.close();
  });

  it('a token bucket: { per_user_per_minute: 5, burst: 5 } lets 5 quick requests through and answers the 6th with 429 RATE_LIMITED and retry-after, per user, and follows a reload', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url, 'supervisor:\n  rate_limit: { per_user_per_minute: 5, burst: 5 }\n') });
    const statuses = [];
    for (let index = 0; index < 6; index += 1) statuses.push((await post(board, 'busy-user')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await post(board, 'busy-user');
    expect(limited.status).toBe(429);
    // One request fits again after one refill interval (12 s), not after the minute.
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(11);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(12);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    expect((await post(board, 'other-user')).status).toBe(200);
    const metrics = await (await fetch(`${board.url}/metrics`)).text();
    expect(metrics).toMatch(/switchboard_guard_stops_total\{guard="rate_limit"\} 2/);

    writeFileSync(board.configPath, registry(agent.url, 'supervisor:\n  rate_limit: { per_user_per_minute: 10 }\n'));
    await (board.switchboard.registry as WatchedRegistry).reload();
    expect((await post(board, 'busy-user')).status).toBe(200);
  });

  it('in open mode counts per user_id whatever Authorization header a request makes up', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url, 'supervisor:\n  rate_limit: { per_user_per_minute: 2, burst: 2 }\n') });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) {
      const response = await fetch(`${board.url}/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer made-up-${index}` },
        body: JSON.stringify({ query: '你好', user_id: 'forger' }),
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('with API keys counts per authenticated key', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url, 'supervisor:\n  rate_limit: { per_user_per_minute: 1, burst: 1 }\n'), apiKeys: ['key-one', 'key-two'] });
    const send = (key: string, userId: string) =>
      fetch(`${board!.url}/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: '你好', user_id: userId }),
      }).then((response) => response.status);
    expect(await send('key-one', 'a')).toBe(200);
    expect(await send('key-one', 'b')).toBe(429);
    expect(await send('key-two', 'a')).toBe(200);
  });
  it('limits /a2a and /v1/agui like /v1/chat, by the same caller: the user_id (or the key) shares one bucket across the three routes', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url, 'supervisor:\n  rate_limit: { per_user_per_minute: 3, burst: 3 }\n') });
    const a2a = (userId: string) =>
      fetch(`${board!.url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `rl-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: '你好' }], metadata: { user_id: userId } } } }),
      });
    const agui = (userId: string) =>
      fetch(`${board!.url}/v1/agui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ threadId: 'rl-thread', runId: `run-${Math.random().toString(36).slice(2)}`, state: {}, messages: [{ id: 'm1', role: 'user', content: '你好' }], tools: [], context: [], forwardedProps: { user_id: userId } }),
      });
    const statuses: number[] = [];
    for (const call of [a2a, a2a, a2a, a2a]) {
      const response = await call('a2a-user');
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const aguiStatuses: number[] = [];
    for (let index = 0; index < 4; index++) {
      const response = await agui('agui-user');
      aguiStatuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(aguiStatuses).toEqual([200, 200, 200, 429]);
    const limited = await agui('agui-user');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    // One bucket per caller across routes: the A2A caller has no chat left either.
    expect((await post(board, 'a2a-user')).status).toBe(429);
    expect((await post(board, 'fresh-user')).status).toBe(200);
  });
});
