/**
 * A sub-agent that leaks: it echoes its own token and its endpoint in its
 * output and message. The dependent agent must not receive the token, and no
 * event the user sees may carry the token, an address or a port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const TOKEN = 'hotel-secret-7f3a9c';
const NOW = new Date(2026, 10, 22, 10, 0, 0);

describe('a sub-agent that echoes its secrets', () => {
  let hotel: FakeAgent;
  let limo: FakeAgent;
  let others: FakeAgent[];
  let board: TestSwitchboard;

  beforeAll(async () => {
    hotel = await startFakeAgent((_body, _index) =>
      jsonReply({
        output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1', debug: `auth=Bearer ${TOKEN}`, callback: 'placeholder' },
        message: `已为您预订北京饭店（token ${TOKEN}，服务地址 ${hotel.url}）。`,
      }),
    );
    limo = await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1' }, message: '司机将在7点接您。' }));
    others = [await startFakeAgent(jsonReply()), await startFakeAgent(jsonReply())];
    const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: limo.url, 7103: others[0]!.url, 7104: others[1]!.url });
    board = await startTestSwitchboard({ registryYaml: yaml, env: { HOTEL_AGENT_TOKEN: TOKEN }, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all([hotel, limo, ...others].map((agent) => agent.close()));
  });

  it('keeps the token from the dependent agent and the token and address from the user', async () => {
    const events = await board.chat('帮我订北京的酒店，明天入住，再安排明天早上7点首都机场接机', { sessionId: 'leaky-1' });
    expect(stageEvents(events, 'agent_done').length).toBeGreaterThanOrEqual(1);
    expect(hotel.calls[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(limo.calls).toHaveLength(1);
    expect(limo.calls[0]!.rawBody).toContain('北京饭店');
    expect(limo.calls[0]!.rawBody).not.toContain(TOKEN);
    const port = new URL(hotel.url).port;
    for (const event of events) {
      expect(event.content).not.toContain(TOKEN);
      expect(event.content).not.toContain(port);
      expect(event.content).not.toContain('127.0.0.1');
    }
    expect(finalEvent(events).content).toContain('北京饭店');
  });
});
