/**
 * A sub-agent that talks about its auth scheme and echoes its token, over
 * real HTTP and SSE: the word "Bearer" reaches the user as it is, the token
 * never does — not in its message, and not in streamed progress that splits
 * the token between two events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const TOKEN = 'hotel-secret-7f3a9c';
const NOW = new Date(2026, 10, 22, 10, 0, 0);

describe('auth scheme words in sub-agent text', () => {
  let hotel: FakeAgent;
  let others: FakeAgent[];
  let board: TestSwitchboard;

  beforeAll(async () => {
    const cut = TOKEN.indexOf('-7f');
    hotel = await startFakeAgent(
      sseReply({
        progress: [`认证方式为 Bearer，令牌 ${TOKEN.slice(0, cut)}`, `${TOKEN.slice(cut)} 已校验。`, 'Bearer auth ok'],
        result: {
          status: 'completed',
          output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' },
          message: `Bearer 令牌（Bearer ${TOKEN}）有效，已为您预订北京饭店。`,
        },
      }),
    );
    others = [await startFakeAgent(), await startFakeAgent(), await startFakeAgent()];
    const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: others[0]!.url, 7103: others[1]!.url, 7104: others[2]!.url }).replace(
      `url: ${hotel.url}\n      protocol: http-json`,
      `url: ${hotel.url}\n      protocol: http-sse`,
    );
    expect(yaml).toContain(`url: ${hotel.url}\n      protocol: http-sse`);
    board = await startTestSwitchboard({ registryYaml: yaml, env: { HOTEL_AGENT_TOKEN: TOKEN }, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all([hotel, ...others].map((agent) => agent.close()));
  });

  it('shows "Bearer" in streamed progress and in the message, and never the token or a piece of it', async () => {
    const events = await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'scheme-words-1' });
    expect(hotel.calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const streamed = stageEvents(events, 'agent_stream').map((event) => event.content);
    expect(streamed.join('')).toContain('认证方式为 Bearer');
    expect(streamed.join('')).toContain('Bearer auth ok');
    const done = stageEvents(events, 'agent_done').find((event) => event.agent_id === 'hotel_agent')!;
    expect(done.content).toContain('Bearer 令牌（[redacted]）有效');
    for (const event of events) {
      expect(event.content).not.toContain(TOKEN);
      expect(event.content).not.toMatch(/hotel-secret|secret-7f|7f3a9c/);
    }
  });
});
