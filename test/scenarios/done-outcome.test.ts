/**
 * The `done` event says what happened to the turn, in the contract's words
 * (docs/api.md#conversation-rules, "Outcome"), and `/metrics` counts each turn under the same
 * word: a failed turn is not `completed`, nor one that escalated, asks for a
 * key or holds a booking for the user's yes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TURN_OUTCOMES } from '../../src/turn/turn-outcome.js';
import type { ResponseState } from '../../src/events/index.js';
import { startFakeAgent, statusReply, type FakeAgent } from '../support/fake-agent.js';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';

let running: DemoSwitchboard;
let brokenWeather: FakeAgent;

beforeAll(async () => {
  brokenWeather = await startFakeAgent(statusReply(503, 'down'));
  running = await startDemoSwitchboard({ replace: { weather: brokenWeather.url }, keepSideEffects: true });
});
afterAll(async () => {
  await running?.close();
  await brokenWeather?.close();
});

async function countsByOutcome(): Promise<Record<string, number>> {
  const text = await (await fetch(`${running.board.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^switchboard_turns_total\{outcome="([a-z_]+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

it.each([
  ['a booking held for the yes', '帮我订北京的酒店，明天入住', 'awaiting_confirmation'],
  ['a key missing', '帮我订酒店', 'input_required'],
  ['the only agent failed', '北京明天天气怎么样', 'failed'],
  ['the user is handed to a human', '气死了，你们这什么破服务，我要投诉你们', 'escalated'],
  ['one booking held, one agent failed', '帮我订北京的酒店，明天入住，再告诉我北京明天的天气', 'partial'],
])('done and /metrics agree: %s → %s', async (_name, query, expected) => {
  const before = await countsByOutcome();
  const events: ResponseState[] = await running.board.chat(query, { sessionId: `done-${expected}`, userId: 'done-user' });
  const done = events.at(-1)!;
  expect(done.metadata.stage).toBe('done');
  expect(done.metadata.state?.outcome).toBe(expected);
  expect(TURN_OUTCOMES).toContain(done.metadata.state?.outcome);
  const after = await countsByOutcome();
  expect((after[expected] ?? 0) - (before[expected] ?? 0)).toBe(1);
});
