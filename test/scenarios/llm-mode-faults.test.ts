/**
 * LLM mode when the model misbehaves: every fault ends in a valid turn, via
 * one retry for an unusable reply, the gateway's own retries for 429/5xx, and
 * the offline path after that. Real HTTP throughout: the scripted fake OpenAI
 * server, the real gateway, fake sub-agents and the real graph.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const QUERY = '帮我订北京的酒店，明天入住，再告诉我北京明天的天气';

let agents: FakeAgent[];
let board: TestSwitchboard;
let offlineBoard: TestSwitchboard;
let fake: FakeOpenAI;
let gateway: OpenAiCompatibleGateway;
let session = 0;

beforeAll(async () => {
  const hotel = await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' }));
  const limo = await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00' } }));
  const flight = await startFakeAgent(jsonReply({ output: { flights: [] } }));
  const weather = await startFakeAgent(
    sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } }),
  );
  agents = [hotel, limo, flight, weather];
  // The verify step has its own tests (verify-step.test.ts); here every model call is one of the two the faults are about.
  const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: limo.url, 7103: flight.url, 7104: weather.url }, { answerCacheTtlS: 0 }).replace(
    'escalate_after_failures: 2',
    'escalate_after_failures: 2\n  verify: { enabled: false }',
  );
  fake = await startFakeOpenAI();
  gateway = createLlmGateway({
    baseUrl: fake.baseUrl,
    model: 'fake-main',
    smallModel: 'fake-small',
    logger: silentLogger,
    timeoutMs: 400,
    maxRetries: 2,
    breaker: false,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2000, random: () => 0.5 },
  });
  board = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  offlineBoard = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
});

afterAll(async () => {
  await board.close();
  await offlineBoard.close();
  gateway.close();
  await fake.close();
  await Promise.all(agents.map((agent) => agent.close()));
});

afterEach(() => fake.assertComplete());

const VALID_INTENT: ScriptedReplySpec = {
  content: {
    kind: 'business',
    intent: ['hotel_agent', 'weather_agent'],
    confidence: 'medium',
    reason: 'scripted',
    rewritten_query: QUERY,
    user_friendly_message: '明白了！',
    task_plan: {
      sub_tasks: [
        { task_id: 'task_1', description: 'MODEL: 预订北京的酒店', assigned_agent: 'hotel_agent', inputs: { city: '北京', check_in_date: TOMORROW }, dependencies: [] },
        { task_id: 'task_2', description: 'MODEL: 查询北京明天的天气', assigned_agent: 'weather_agent', inputs: { city: '北京' }, dependencies: [] },
      ],
    },
  },
};
const SUMMARY: ScriptedReplySpec = { content: '北京饭店已为您订好，北京明天晴，最高8度。出门注意保暖，祝您旅途愉快！' };

async function turn(): Promise<{ events: ResponseState[]; requests: number }> {
  const before = fake.requests.length;
  session += 1;
  const events = await board.chat(QUERY, { sessionId: `fault-${session}` });
  return { events, requests: fake.requests.length - before };
}

function completeFinal(events: readonly ResponseState[]): ResponseState {
  const final = events.find((event) => event.metadata.stage === 'final' && (event.metadata.state as { delta?: boolean } | undefined)?.delta !== true);
  if (!final) throw new Error('no complete final event');
  return final;
}

function plan(events: readonly ResponseState[]) {
  return stageEvents(events, 'plan_done')[0]!.metadata.state!.task_plan as { task_type: string; sub_tasks: { assigned_agent: string; description: string; dependencies: string[] }[] };
}

async function expectValidTurn(events: readonly ResponseState[]): Promise<void> {
  expect(events.at(-1)!.type).toBe('done');
  const shape = plan(events);
  expect(shape.task_type).toBe('parallel');
  expect(shape.sub_tasks.map((entry) => entry.assigned_agent).sort()).toEqual(['hotel_agent', 'weather_agent']);
  expect(completeFinal(events).is_thinking).toBe(false);
}

async function fallbackCount(reason: string): Promise<number> {
  const metric = await board.switchboard.metrics.intentFallbacks.get();
  return metric.values.find((entry) => entry.labels.reason === reason)?.value ?? 0;
}

function usedDraft(events: readonly ResponseState[]): boolean {
  return plan(events).sub_tasks.every((entry) => entry.description.startsWith('MODEL:'));
}

describe('LLM mode faults', () => {
  it('retries a reply that is not JSON once, then lets the offline matcher plan the turn', async () => {
    fake.push('当然可以！我来帮您安排。', '{"kind": "business", "intent": [', SUMMARY);
    const before = await fallbackCount('invalid_reply');
    const { events, requests } = await turn();
    expect(requests).toBe(3);
    const retry = fake.requests.at(-2)!;
    expect(retry.messages.at(-2)).toEqual({ role: 'assistant', content: '当然可以！我来帮您安排。' });
    expect(retry.messages.at(-1)!.content).toContain('could not be used');
    await expectValidTurn(events);
    expect(usedDraft(events)).toBe(false);
    expect(await fallbackCount('invalid_reply')).toBe(before + 1);
    const offline = await offlineBoard.chat(QUERY, { sessionId: 'offline-fault-1' });
    expect(plan(events).sub_tasks.map((entry) => [entry.assigned_agent, entry.dependencies.length])).toEqual(
      plan(offline).sub_tasks.map((entry) => [entry.assigned_agent, entry.dependencies.length]),
    );
  });

  it('keeps a usable intent whose plan draft is malformed and plans offline, without a retry', async () => {
    const broken = structuredClone(VALID_INTENT.content) as { task_plan: unknown };
    broken.task_plan = { sub_tasks: [{ assigned_agent: 42 }] };
    fake.push({ content: broken }, SUMMARY);
    const { events, requests } = await turn();
    expect(requests).toBe(2);
    await expectValidTurn(events);
    expect(usedDraft(events)).toBe(false);
  });

  it('retries a reply that fails the schema and uses the corrected one', async () => {
    fake.push({ content: { kind: 'business', intent: 'hotel_agent' } }, VALID_INTENT, SUMMARY);
    const { events, requests } = await turn();
    expect(requests).toBe(3);
    expect(fake.requests.at(-2)!.messages.at(-1)!.content).toMatch(/must have required property|must be array/);
    await expectValidTurn(events);
    expect(usedDraft(events)).toBe(true);
  });

  it('falls back to the offline matcher and the template answer when 5xx answers exhaust the gateway retries', async () => {
    fake.push({ status: 500 }, { status: 503 }, { status: 502 });
    const before = await fallbackCount('server_error');
    const { events, requests } = await turn();
    expect(requests).toBe(3);
    await expectValidTurn(events);
    expect(usedDraft(events)).toBe(false);
    expect(await fallbackCount('server_error')).toBe(before + 1);
    // The endpoint already failed this turn: the answer is the template one, with no further call.
    expect(completeFinal(events).content).toContain('【酒店服务】');
  });

  it('waits out a 429 with Retry-After and then uses the model reply', async () => {
    fake.push({ status: 429, retryAfter: '0.05' }, VALID_INTENT, SUMMARY);
    const { events, requests } = await turn();
    expect(requests).toBe(3);
    await expectValidTurn(events);
    expect(usedDraft(events)).toBe(true);
  });

  it('falls back at once when the model hangs past the timeout, and does not wait on it again for the answer', async () => {
    fake.push({ hang: true });
    const before = await fallbackCount('timeout');
    const { events, requests } = await turn();
    expect(requests).toBe(1);
    await expectValidTurn(events);
    expect(await fallbackCount('timeout')).toBe(before + 1);
    expect(completeFinal(events).content).toContain('【酒店服务】');
  });

  it('answers with the template summary when the answer stream breaks after some deltas', async () => {
    fake.push(VALID_INTENT, { content: '北京饭店已为您订好，北京明天晴，最高8度。出门注意保暖，祝您旅途愉快！这是一段很长的回答。', truncateStream: true });
    const { events, requests } = await turn();
    expect(requests).toBe(2); // a stream that already showed tokens is not retried
    await expectValidTurn(events);
    const deltas = events.filter((event) => (event.metadata.state as { delta?: boolean } | undefined)?.delta === true);
    expect(deltas.length).toBeGreaterThan(0);
    const final = completeFinal(events);
    expect(final.content).toContain('【酒店服务】');
    expect(final.content).toContain('北京饭店');
    expect(final.content).toContain('北京明天晴');
  });

  it('answers with the template summary when the answer call fails outright', async () => {
    fake.push(VALID_INTENT, { status: 500 }, { status: 500 }, { status: 500 });
    const { events, requests } = await turn();
    expect(requests).toBe(4);
    await expectValidTurn(events);
    expect(completeFinal(events).content).toContain('【天气查询】');
  });
});
