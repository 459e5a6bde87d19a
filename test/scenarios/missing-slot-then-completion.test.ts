/**
 * The customer-service registry: a refund missing its reason is parked while
 * the logistics query runs (it continues the refund clause's subject, so it
 * takes that order id); next turn `质量问题` alone fills the key and only the
 * parked refund runs, with the order id remembered from the first turn.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let agents: Record<'order' | 'logistics' | 'refund' | 'invoice' | 'faq', FakeAgent>;
let board: TestSwitchboard;

beforeAll(async () => {
  agents = {
    order: await startFakeAgent(jsonReply({ output: { order_id: '1234567890123', status: 'delivered' }, message: '订单已签收。' })),
    logistics: await startFakeAgent(jsonReply({ output: { order_id: '1234567890123', status: 'delivered', events: [] }, message: '包裹已于昨天送达。' })),
    refund: await startFakeAgent(jsonReply({ output: { refund_id: 'RF-9', status: 'accepted' }, message: '退款申请已受理。' })),
    invoice: await startFakeAgent(jsonReply({ output: { invoice_id: 'INV-1' } })),
    faq: await startFakeAgent(jsonReply({ output: { answer: 'M 码' } })),
  };
  const yaml = sampleRegistry('examples/ecommerce/agents_config.yaml', {
    7201: agents.order.url,
    7202: agents.logistics.url,
    7203: agents.refund.url,
    7204: agents.invoice.url,
    7205: agents.faq.url,
  });
  board = await startTestSwitchboard({ registryYaml: yaml });
});

afterAll(async () => {
  await board.close();
  await Promise.all(Object.values(agents).map((agent) => agent.close()));
});

it('parks the refund, runs the rest, then completes only the refund from a bare reason', async () => {
  const first = await board.chat('订单 1234567890123 我要退款，还有包裹到哪了', { sessionId: 'refund-1' });
  const info = finalEvent(first).metadata.semantic_info ?? [];
  expect(info).toEqual([
    { type: 'miss', sub_agent_id: 'refund_agent', keys: ['refund_reason'], key_descriptions: [expect.any(String)], fe_widgets_suggestion: ['reason_picker'], key_options: [expect.arrayContaining(['质量问题'])] },
  ]);
  expect(agents.logistics.calls).toHaveLength(1);
  expect((agents.logistics.calls[0]!.body as { inputs: unknown }).inputs).toEqual({ order_id: '1234567890123' });
  expect(agents.refund.calls).toHaveLength(0);
  expect(finalEvent(first).content).toContain('质量问题');

  const logisticsBefore = agents.logistics.calls.length;
  const second = await board.chat('质量问题', { sessionId: 'refund-1' });
  expect(agents.refund.calls).toHaveLength(1);
  expect((agents.refund.calls[0]!.body as { inputs: unknown }).inputs).toMatchObject({ order_id: '1234567890123', refund_reason: '质量问题' });
  expect(agents.logistics.calls).toHaveLength(logisticsBefore);
  expect(finalEvent(second).metadata.semantic_info ?? []).toEqual([]);
  expect(finalEvent(second).content).toContain('退款申请已受理');
});
