/**
 * supervisor.max_concurrent_turns: with 2 turns in flight (held by a slow
 * sub-agent), more turns on /v1/chat, /a2a and /v1/agui are answered at once
 * with 503 OVERLOADED and retry-after; /healthz keeps answering, /readyz says
 * saturated, switchboard_turns_rejected_total counts them; once the turns end
 * (their SSE streams included) new turns are admitted again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

function registry(url: string): string {
  return `version: 1
supervisor:
  max_concurrent_turns: 2
agents:
  - id: slow_agent
    name: 慢服务
    description: 慢慢回答 a slow echo
    keywords: [慢, slow]
    endpoint: { url: "${url}", retries: 0, timeout_ms: 10000 }
`;
}

const SLOW_MS = 1500;

function chat(board: TestSwitchboard, userId: string): Promise<Response> {
  return fetch(`${board.url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: '慢 slow please', user_id: userId }),
  });
}

async function errorCode(response: Response): Promise<string | undefined> {
  return ((await response.json()) as { error?: { code?: string } }).error?.code;
}

describe('admission control (max_concurrent_turns)', () => {
  let board: TestSwitchboard | undefined;
  let agent: FakeAgent | undefined;
  afterEach(async () => {
    await board?.close();
    await agent?.close();
  });

  it('5 concurrent turns with a limit of 2: 2 complete, 3 get 503 OVERLOADED with retry-after at once; probes answer; new turns are admitted after', async () => {
    agent = await startFakeAgent(jsonReply({ output: { ok: true }, message: 'slow answer', delayMs: SLOW_MS }));
    board = await startTestSwitchboard({ registryYaml: registry(agent.url) });

    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 5 }, (_unused, index) => chat(board!, `u-${index}`)));
    const admitted = responses.filter((response) => response.status === 200);
    const refused = responses.filter((response) => response.status === 503);
    expect(admitted).toHaveLength(2);
    expect(refused).toHaveLength(3);
    // The refusals come at once, not after the slow agent.
    expect(Date.now() - started).toBeLessThan(SLOW_MS);
    for (const response of refused) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await errorCode(response)).toBe('OVERLOADED');
    }

    // While the two turns stream: the other turn routes are refused too, the probes answer.
    const a2a = await fetch(`${board.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: '慢' }] } } }),
    });
    expect(a2a.status).toBe(503);
    expect(a2a.headers.get('retry-after')).not.toBeNull();
    expect(await errorCode(a2a)).toBe('OVERLOADED');
    const agui = await fetch(`${board.url}/v1/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId: 't1', runId: 'r1', messages: [{ id: 'm1', role: 'user', content: '慢' }], tools: [], context: [], state: {}, forwardedProps: { user_id: 'u-agui' } }),
    });
    expect(agui.status).toBe(503);
    expect(await errorCode(agui)).toBe('OVERLOADED');
    expect((await fetch(`${board.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${board.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).not.toBeNull();
    expect(((await ready.json()) as { status: string }).status).toBe('saturated');
    const during = await (await fetch(`${board.url}/metrics`)).text();
    expect(during).toMatch(/switchboard_turns_rejected_total\{reason="overloaded"\} 5\b/);
    expect(during).toMatch(/switchboard_turns_in_flight 2\b/);

    // The admitted turns run to their end (the SSE stream's done event).
    for (const response of admitted) {
      const text = await response.text();
      expect(text).toContain('"type":"done"');
    }
    expect(agent.calls).toHaveLength(2);

    // Their places are free once the streams ended.
    await expect.poll(async () => (await fetch(`${board!.url}/readyz`)).status, { timeout: 2000 }).toBe(200);
    const again = await Promise.all([chat(board, 'u-again-1'), chat(board, 'u-again-2')]);
    expect(again.map((response) => response.status)).toEqual([200, 200]);
    for (const response of again) expect(await response.text()).toContain('"type":"done"');
    const after = await (await fetch(`${board.url}/metrics`)).text();
    expect(after).toMatch(/switchboard_turns_rejected_total\{reason="overloaded"\} 5\b/);
    expect(after).toMatch(/switchboard_turns_in_flight 0\b/);
  });
});
