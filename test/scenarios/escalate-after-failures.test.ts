/**
 * Two consecutive turns whose sub-tasks all fail hand the conversation to a
 * human (escalate_after_failures: 2), with an escalation card for the agent.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, statusReply, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let hotel: FakeAgent;
let others: FakeAgent;
let board: TestSwitchboard;

beforeAll(async () => {
  hotel = await startFakeAgent(statusReply(503));
  others = await startFakeAgent(jsonReply());
  const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: others.url, 7103: others.url, 7104: others.url }).replaceAll('retries: 1', 'retries: 0');
  board = await startTestSwitchboard({ registryYaml: yaml });
});

afterAll(async () => {
  await board.close();
  await hotel.close();
  await others.close();
});

it('escalates on the second consecutive failed turn, not the first', async () => {
  const first = await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'esc-1' });
  expect(stageEvents(first, 'agent_failed')).toHaveLength(1);
  expect(stageEvents(first, 'escalate')).toHaveLength(0);
  const view = (await (await fetch(`${board.url}/v1/agents`)).json()) as { agents: { id: string; health: { status: string } }[] };
  expect(view.agents.find((card) => card.id === 'hotel_agent')!.health.status).toBe('failing');
  expect(view.agents.find((card) => card.id === 'weather_agent')!.health.status).toBe('unknown');

  const second = await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'esc-1' });
  const escalate = stageEvents(second, 'escalate');
  expect(escalate).toHaveLength(1);
  const order = second.map((event) => event.metadata.stage);
  expect(order.indexOf('escalate')).toBeGreaterThan(order.indexOf('final'));
  expect(order.at(-1)).toBe('done');
  const card = (escalate[0]!.metadata.state as { escalation_card: { reason: string; failed_tasks: unknown[]; recent_turns: unknown[] } }).escalation_card;
  expect(card.reason).toBe('failures');
  expect(card.recent_turns).toHaveLength(2);
  expect(card.failed_tasks).toHaveLength(1);
  expect(finalEvent(second).content).toContain('酒店服务');

  // The counter starts again after escalation.
  const third = await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'esc-1' });
  expect(stageEvents(third, 'escalate')).toHaveLength(0);
});
