/**
 * Escalation: a request for a human, a strongly negative message, or repeated
 * failures produce a masked escalation card; the card is POSTed to the ticket
 * webhook with the trace id as idempotency key, retried with backoff while
 * the receiver fails, and the user's stream never waits for it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

interface Delivery {
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

let agent: FakeAgent;
let board: TestSwitchboard;
let receiver: Server;
const deliveries: Delivery[] = [];
/** Status codes the receiver answers, in order; then 200. */
const script: number[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      deliveries.push({ at: Date.now(), headers: request.headers, body: JSON.parse(text) as Record<string, unknown> });
      // Slow answers: a stream that waited for the webhook would be late.
      setTimeout(() => {
        response.statusCode = script.shift() ?? 200;
        response.end('{}');
      }, 150);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  agent = await startFakeAgent(jsonReply());
  const yaml = sampleRegistry('agents_config.yaml', { 7101: agent.url, 7102: agent.url, 7103: agent.url, 7104: agent.url }).replace(
    '  escalate_after_failures: 2',
    '  escalate_after_failures: 2\n  escalation:\n    webhook_url: "${TICKET_WEBHOOK_URL}/tickets"\n    emotion_words: [气炸了]',
  );
  board = await startTestSwitchboard({
    registryYaml: yaml,
    env: { TICKET_WEBHOOK_URL: `http://127.0.0.1:${port}` },
    ticketWebhook: { initialDelayMs: 20, maxDelayMs: 100, maxRetries: 4 },
  });
});

afterAll(async () => {
  await board.close();
  await agent.close();
  await new Promise((resolve) => receiver.close(resolve));
});

function cardOf(events: readonly ResponseState[]): Record<string, unknown> {
  const escalate = stageEvents(events, 'escalate');
  expect(escalate).toHaveLength(1);
  return (escalate[0]!.metadata.state as { escalation_card: Record<string, unknown> }).escalation_card;
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('posts the card to a failing-then-recovering receiver with backoff and the trace id as idempotency key, without delaying the stream', async () => {
  deliveries.length = 0;
  script.push(503, 500);
  const started = Date.now();
  const events = await board.chat('我要转人工，我的手机是13812345678，邮箱 zhang.san@example.com', { sessionId: 'e-1' });
  const streamMs = Date.now() - started;
  const card = cardOf(events);
  const traceId = (events.at(-1)!.metadata.state as { trace_id: string }).trace_id;
  expect(card).toMatchObject({ reason: 'user_request', user_id: 'u1', session_id: 'e-1', trace_id: traceId });
  expect(deliveries.length).toBeLessThanOrEqual(1);

  await waitFor(() => deliveries.length === 3);
  // The stream had ended before the receiver even answered its first attempt.
  expect(streamMs).toBeLessThan(deliveries[2]!.at - started);
  for (const delivery of deliveries) {
    expect(delivery.headers['idempotency-key']).toBe(traceId);
    expect(delivery.headers['content-type']).toMatch(/application\/json/);
    expect(delivery.body).toEqual(card);
  }
  expect(deliveries[2]!.at - deliveries[1]!.at).toBeGreaterThanOrEqual(150);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(deliveries).toHaveLength(3);

  // Every field, masked.
  const text = JSON.stringify(card);
  expect(text).not.toContain('13812345678');
  expect(text).not.toContain('zhang.san@example.com');
  expect(text).toContain('138****5678');
  expect(card.summary).toMatch(/用户要求转人工/);
  expect(card.recent_turns).toEqual([{ query: '我要转人工，我的手机是138****5678，邮箱 zh***@example.com', answer: expect.any(String) }]);
  expect(card.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  for (const field of ['intents', 'pending', 'failed_tasks']) expect(Array.isArray(card[field])).toBe(true);
});

it('escalates a strongly negative message with reason emotion, before any sub-agent is called', async () => {
  deliveries.length = 0;
  const calls = agent.calls.length;
  const events = await board.chat('你们的酒店预订太差劲了，气死我了！！', { sessionId: 'e-2' });
  const card = cardOf(events);
  expect(card.reason).toBe('emotion');
  expect(card.summary).toMatch(/情绪/);
  expect(card.intents).toEqual(['hotel_agent']);
  expect(agent.calls.length).toBe(calls);
  expect(stageEvents(events, 'escalate')[0]!.content).toMatch(/抱歉/);
  expect(events.at(-1)!.metadata.stage).toBe('done');
  await waitFor(() => deliveries.length === 1);
});

it('takes configured emotion words, and leaves calm or mildly unhappy messages alone', async () => {
  expect(cardOf(await board.chat('气炸了！！', { sessionId: 'e-3' })).reason).toBe('emotion');
  const mild = await board.chat('有点失望，北京明天天气怎么样', { sessionId: 'e-4' });
  expect(stageEvents(mild, 'escalate')).toHaveLength(0);
  expect(finalEvent(mild).content.length).toBeGreaterThan(0);
});
