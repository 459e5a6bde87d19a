/**
 * Seed 004: agents that call back into Switchboard never loop. Every
 * sub-agent request carries x-switchboard-depth; a call arriving at
 * max_delegation_depth is refused with 400 before any stream opens.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchedRegistry } from '../../src/registry/watch-registry.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

function registry(url: string, supervisor = ''): string {
  return `version: 1
${supervisor}agents:
  - id: echo_agent
    name: 回声服务
    description: 回声 echo repeats the request
    keywords: [回声, echo]
    endpoint: { url: "${url}", retries: 0 }
`;
}

async function post(board: TestSwitchboard, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${board.url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, user_id: 'u1' }),
  });
}

describe('delegation depth', () => {
  let board: TestSwitchboard | undefined;
  let agent: FakeAgent | undefined;
  afterEach(async () => {
    await board?.close();
    await agent?.close();
    board = undefined;
    agent = undefined;
  });

  it('sends depth 1 from a user turn and incoming depth + 1 from a delegated one', async () => {
    agent = await startFakeAgent(jsonReply({ message: '好的' }));
    board = await startTestSwitchboard({ registryYaml: registry(agent.url) });
    expect((await post(board, '回声 echo 你好')).status).toBe(200);
    expect((await post(board, '回声 echo 再来', { 'x-switchboard-depth': '1' })).status).toBe(200);
    expect(agent.calls.map((call) => call.headers['x-switchboard-depth'])).toEqual(['1', '2']);
  });

  it('refuses a call at the limit with 400 DELEGATION_DEPTH_EXCEEDED before any stream, and counts it', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url) });
    const response = await fetch(`${board.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-switchboard-depth': '3' },
      body: JSON.stringify({ query: '回声 echo', user_id: 'u1' }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('DELEGATION_DEPTH_EXCEEDED');
    expect(agent.calls).toHaveLength(0);
    const metrics = await (await fetch(`${board.url}/metrics`)).text();
    expect(metrics).toMatch(/switchboard_guard_stops_total\{guard="delegation_depth"\} 1/);
  });

  it('takes a new max_delegation_depth on hot reload', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url) });
    expect((await post(board, '回声 echo', { 'x-switchboard-depth': '1' })).status).toBe(200);
    writeFileSync(board.configPath, registry(agent.url, 'supervisor:\n  max_delegation_depth: 1\n'));
    await (board.switchboard.registry as WatchedRegistry).reload();
    expect(board.switchboard.registry.current().supervisor.maxDelegationDepth).toBe(1);
    expect((await post(board, '回声 echo', { 'x-switchboard-depth': '1' })).status).toBe(400);
    expect((await post(board, '回声 echo')).status).toBe(200);
  });

  it('rejects a malformed depth header', async () => {
    agent = await startFakeAgent(jsonReply());
    board = await startTestSwitchboard({ registryYaml: registry(agent.url) });
    const response = await post(board, '回声 echo', { 'x-switchboard-depth': 'deep' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });

  it('stops an agent that calls back into Switchboard after max_delegation_depth rounds (hot-reloadable limit)', async () => {
    const seen: number[] = [];
    let loopBoard: TestSwitchboard | undefined;
    agent = await startFakeAgent(async (_body, _index, call) => {
      const depth = call.headers['x-switchboard-depth'] ?? '';
      seen.push(Number(depth));
      const nested = await post(loopBoard!, '回声 echo 再问一次', { 'x-switchboard-depth': depth });
      return jsonReply({ message: `nested ${nested.status}` });
    });
    board = await startTestSwitchboard({ registryYaml: registry(agent.url) });
    loopBoard = board;
    expect((await post(board, '回声 echo 开始')).status).toBe(200);
    expect(seen).toEqual([1, 2, 3]);
  });
});
