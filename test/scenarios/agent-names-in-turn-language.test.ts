/**
 * An agent id a sub-agent echoes never reaches the user (contract §3: content
 * never holds an agent id); it is shown as that agent's name in the turn's
 * language (`name: { zh: …, en: … }`): the English name for an English turn,
 * the Chinese one for a Chinese turn.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let payslips: FakeAgent;
let expenses: FakeAgent;
let board: TestSwitchboard;

beforeAll(async () => {
  payslips = await startFakeAgent(jsonReply({ output: { ok: true }, message: 'Payslip sent. For refunds of travel costs, ask expense_agent.' }));
  expenses = await startFakeAgent(jsonReply({ output: { ok: true }, message: 'ok' }));
  board = await startTestSwitchboard({
    registryYaml: `version: 1
agents:
  - id: payslip_agent
    name: { zh: 工资条, en: Payslips }
    description: 查询工资条
    examples: ["查一下我三月份的工资条", "show me my payslip for March"]
    keywords: ["工资条", "payslip"]
    endpoint: { url: ${JSON.stringify(payslips.url)}, protocol: http-json }
  - id: expense_agent
    name: { zh: 费用报销, en: Expense claims }
    description: 报销差旅费用
    examples: ["我要报销差旅费", "claim my travel expenses"]
    keywords: ["报销", "expenses"]
    endpoint: { url: ${JSON.stringify(expenses.url)}, protocol: http-json }
`,
  });
});

afterAll(async () => {
  await board.close();
  await payslips.close();
  await expenses.close();
});

it('shows an echoed agent id as the agent name in the language of the turn', async () => {
  const english = finalEvent(await board.chat('show me my payslip for March', { sessionId: 'names-en' })).content;
  expect(english).toContain('ask Expense claims.');
  expect(english).not.toContain('expense_agent');
  const chinese = finalEvent(await board.chat('查一下我三月份的工资条', { sessionId: 'names-zh' })).content;
  expect(chinese).toContain('ask 费用报销.');
  expect(chinese).not.toContain('expense_agent');
});
