/**
 * Two side effects held in one turn, answered in one message that says yes to
 * one and no to the other by naming them ("充值确认，宽带不要了", "confirm the
 * refill but cancel the appointment"): only the one said yes to runs, the other
 * is dropped and never sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let topup: FakeAgent;
let broadband: FakeAgent;
let board: TestSwitchboard;

beforeAll(async () => {
  topup = await startFakeAgent(jsonReply({ output: { ok: true }, message: 'topped up' }));
  broadband = await startFakeAgent(jsonReply({ output: { ok: true }, message: 'installation booked' }));
  board = await startTestSwitchboard({
    now: () => new Date('2026-11-23T10:00:00+08:00'),
    registryYaml: `version: 1
agents:
  - id: topup_agent
    name: { zh: 话费充值, en: Phone top-up }
    description: { zh: 给手机号充话费, en: Top up a phone number }
    side_effects: true
    examples: ["给13900001111充100块话费", "top up my phone with 50"]
    keywords: [充值, 充话费, top up, top-up]
    endpoint: { url: "${topup.url}" }
    required_semantic_keys:
      - { key: phone, description: { zh: 充值号码, en: phone number }, extract: { type: phone } }
      - { key: amount, description: { zh: 充值金额, en: amount }, extract: { type: number } }
  - id: broadband_agent
    name: { zh: 宽带报装, en: Broadband installation }
    description: { zh: 预约上门安装家庭宽带, en: Book a broadband installation visit }
    side_effects: true
    examples: ["我要装宽带", "book a broadband installation in Hangzhou"]
    keywords: [宽带, broadband]
    endpoint: { url: "${broadband.url}" }
    required_semantic_keys:
      - { key: city, description: { zh: 安装城市, en: city }, extract: { enum: [北京, 杭州, Beijing, Hangzhou] } }
      - { key: install_date, description: { zh: 上门日期, en: visit date }, extract: { type: date } }
`,
  });
});

afterAll(async () => {
  await board.close();
  await topup.close();
  await broadband.close();
});

beforeEach(() => {
  topup.calls.length = 0;
  broadband.calls.length = 0;
});

function confirmationOf(event: ResponseState): { task_id: string; sub_agent_id: string }[] {
  return (event.metadata as { confirmation?: { task_id: string; sub_agent_id: string }[] }).confirmation ?? [];
}

it.each([
  ['zh', '在杭州装宽带，12月5号上门，再给13812345678充值50元', '充值确认，宽带不要了'],
  ['en', 'book a broadband installation in Hangzhou on December 5, and top up 13812345678 with 50', 'confirm the top-up but cancel the broadband'],
])('%s: a yes to one held task and a no to the other, by name, runs only the one said yes to', async (_language, request, reply) => {
  const sessionId = `one-of-several-${_language}`;
  const held = confirmationOf(finalEvent(await board.chat(request, { sessionId })));
  expect(held.map((task) => task.sub_agent_id).sort()).toEqual(['broadband_agent', 'topup_agent']);

  const events = await board.chat(reply, { sessionId });
  expect(topup.calls).toHaveLength(1);
  expect(topup.calls[0]!.body).toMatchObject({ inputs: { phone: '13812345678', amount: 50 } });
  expect(broadband.calls).toHaveLength(0);
  expect(confirmationOf(finalEvent(events))).toEqual([]);

  // Nothing is left to confirm: a later yes runs nothing more.
  await board.chat(_language === 'zh' ? '确认' : 'yes', { sessionId });
  expect(topup.calls).toHaveLength(1);
  expect(broadband.calls).toHaveLength(0);
});

it('does not run a confirmed task whose held value the live registry no longer accepts (an enum value removed by a reload)', async () => {
  const sessionId = 'held-then-reloaded';
  const held = confirmationOf(finalEvent(await board.chat('在杭州装宽带，12月5号上门', { sessionId })));
  expect(held).toHaveLength(1);
  const original = readFileSync(board.configPath, 'utf8');
  const before = ((await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string }).version;
  writeFileSync(board.configPath, original.replace('enum: [北京, 杭州, Beijing, Hangzhou]', 'enum: [北京, Beijing]'));
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const view = (await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string };
      if (view.version !== before) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await board.chat('', { sessionId, confirm: [held[0]!.task_id] });
    expect(broadband.calls).toHaveLength(0);
    expect(finalEvent(answer).content).toMatch(/不再有效/);
    expect(finalEvent(answer).content).not.toContain('broadband_agent');
  } finally {
    writeFileSync(board.configPath, original);
  }
});
