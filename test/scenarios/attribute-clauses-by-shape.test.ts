/**
 * A clause that only gives a key's label and a value ("订单 A1001", "单号是 B2002",
 * "原因是质量问题", "for order A1001") belongs to the request beside it, or to
 * the parked / held task whose key it fits, on a registry whose order lookup's
 * own examples look just like that clause ("查一下我的订单 A1001"). Corrections
 * carrying several values update the task they correct, and a held task
 * confirmed afterwards runs with the corrected values.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { shopRegistry, type ShopUrls } from '../support/shop-registry.js';
import { finalEvent, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let agents: Record<keyof ShopUrls, FakeAgent>;
let board: TestSwitchboard;

beforeAll(async () => {
  const echo = () => startFakeAgent((body) => jsonReply({ output: { received: (body as { inputs: unknown }).inputs }, message: '好的。' }));
  agents = { orders: await echo(), logistics: await echo(), refund: await echo(), points: await echo(), reports: await echo() };
  const urls = Object.fromEntries(Object.entries(agents).map(([name, agent]) => [name, agent.url])) as unknown as ShopUrls;
  board = await startTestSwitchboard({ registryYaml: shopRegistry(urls), now: () => new Date('2026-11-23T10:00:00+08:00') });
});

afterAll(async () => {
  await board.close();
  await Promise.all(Object.values(agents).map((agent) => agent.close()));
});

beforeEach(() => {
  for (const agent of Object.values(agents)) agent.calls.length = 0;
});

interface Held {
  task_id: string;
  sub_agent_id: string;
  inputs: Record<string, unknown>;
}

const heldOf = (events: readonly ResponseState[]): Held[] => (finalEvent(events).metadata as { confirmation?: Held[] }).confirmation ?? [];
const calledAgents = (events: readonly ResponseState[]) => stageEvents(events, 'agent_start').map((event) => event.agent_id);
const missingOf = (events: readonly ResponseState[]) => (finalEvent(events).metadata.semantic_info ?? []).map((info) => [info.sub_agent_id, info.keys]);
const refundInputs = () => agents.refund.calls.map((call) => (call.body as { inputs: Record<string, unknown> }).inputs);

describe('a label-and-value clause beside a request', () => {
  it('"我要退款，订单 A1001" routes only the refund, with its order number filled', async () => {
    const events = await board.chat('我要退款，订单 A1001', { sessionId: 'shape-1' });
    expect(agents.orders.calls).toHaveLength(0);
    expect(calledAgents(events)).toEqual([]);
    const parked = finalEvent(events);
    expect(missingOf(events)).toEqual([['refund', ['reason']]]);
    expect(parked.content).not.toContain('订单查询');
  });

  it('"我要退款，订单 A1001，原因是质量问题" is held for confirmation with both values', async () => {
    const events = await board.chat('我要退款，订单 A1001，原因是质量问题', { sessionId: 'shape-2' });
    expect(agents.orders.calls).toHaveLength(0);
    expect(heldOf(events)).toEqual([expect.objectContaining({ sub_agent_id: 'refund', inputs: { order_id: 'A1001', reason: '质量问题' } })]);
  });

  it('reads "单号是 B2002", "order A1001" and "for order A1001" the same way', async () => {
    const zh = await board.chat('我要退款，单号是 B2002', { sessionId: 'shape-3' });
    expect(missingOf(zh)).toEqual([['refund', ['reason']]]);
    const en = await board.chat('I want a refund, for order A1001, quality issue', { sessionId: 'shape-4' });
    expect(heldOf(en)).toEqual([expect.objectContaining({ sub_agent_id: 'refund', inputs: { order_id: 'A1001', reason: 'quality issue' } })]);
    expect(agents.orders.calls).toHaveLength(0);
  });

  it('keeps a clause with a request of its own a request ("查一下订单 A1001，再查物流")', async () => {
    const events = await board.chat('查一下订单 A1001，再查物流', { sessionId: 'shape-5' });
    expect(calledAgents(events).sort()).toEqual(['logistics', 'order_lookup']);
  });

  it('over A2A the refund with its order number ends input-required, not completed', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const message: Message = {
      messageId: 'shape-a2a-1',
      contextId: 'shape-a2a',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: '我要退款，订单 A1001' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const task = (await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(agents.orders.calls).toHaveLength(0);
  });
});

describe('corrections that carry more than one value', () => {
  it('a parked refund corrected with "不对，原因是质量问题，单号 B2002" is updated, no order lookup opens', async () => {
    await board.chat('我要退款', { sessionId: 'fix-1' });
    const corrected = await board.chat('不对，原因是质量问题，单号 B2002', { sessionId: 'fix-1' });
    expect(agents.orders.calls).toHaveLength(0);
    expect(heldOf(corrected)).toEqual([expect.objectContaining({ sub_agent_id: 'refund', inputs: { order_id: 'B2002', reason: '质量问题' } })]);
  });

  it('a refund given one order number, then corrected, runs on yes with the corrected number only', async () => {
    await board.chat('我要退款，订单 A1001', { sessionId: 'fix-2' });
    const corrected = await board.chat('不对，原因是发错货，单号 B2002', { sessionId: 'fix-2' });
    expect(agents.orders.calls).toHaveLength(0);
    expect(heldOf(corrected).map((task) => task.inputs)).toEqual([{ order_id: 'B2002', reason: '发错货' }]);
    await board.chat('确认', { sessionId: 'fix-2' });
    expect(refundInputs()).toEqual([{ order_id: 'B2002', reason: '发错货' }]);
  });

  it('a held refund corrected with "不对，单号是 B2002" runs with B2002, never A1001', async () => {
    await board.chat('我要退款，订单 A1001，原因是质量问题', { sessionId: 'fix-3' });
    const corrected = await board.chat('不对，单号是 B2002', { sessionId: 'fix-3' });
    expect(heldOf(corrected).map((task) => task.inputs)).toEqual([{ order_id: 'B2002', reason: '质量问题' }]);
    await board.chat('确认', { sessionId: 'fix-3' });
    expect(refundInputs()).toEqual([{ order_id: 'B2002', reason: '质量问题' }]);
    expect(agents.orders.calls).toHaveLength(0);
  });

  it('"确认，不过订单号改成 B2002" on a held refund corrects it, and the next yes runs B2002', async () => {
    await board.chat('我要退款，订单 A1001，原因是质量问题', { sessionId: 'fix-4' });
    const corrected = await board.chat('确认，不过订单号改成 B2002', { sessionId: 'fix-4' });
    expect(agents.refund.calls).toHaveLength(0);
    expect(heldOf(corrected).map((task) => task.inputs)).toEqual([{ order_id: 'B2002', reason: '质量问题' }]);
    await board.chat('确认', { sessionId: 'fix-4' });
    expect(refundInputs()).toEqual([{ order_id: 'B2002', reason: '质量问题' }]);
    expect(agents.orders.calls).toHaveLength(0);
  });
});
