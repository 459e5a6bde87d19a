/**
 * `POST /v1/agui` sends the answer as the model streams it: one
 * TEXT_MESSAGE_CONTENT per streamed piece, as the pieces arrive, whose
 * concatenation is the complete answer — driven by the stock `@ag-ui/client`
 * `HttpAgent` (which runs the SDK's own `verifyEvents` on the stream), every
 * event parsed with `@ag-ui/core`'s event schemas. When the complete answer
 * does not extend what was streamed (the model's stream broke, the answer was
 * composed without it) a MESSAGES_SNAPSHOT puts it in place; without a model
 * the composed answer is one piece. The scripted fake OpenAI server streams;
 * the sub-agent is a fake.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { from, lastValueFrom, toArray } from 'rxjs';
import { HttpAgent, verifyEvents } from '@ag-ui/client';
import type { BaseEvent } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const CHUNKS = ['北京明天', '天气晴，', '最高8度，', '最低零下2度，', '注意保暖。'];

let weather: FakeAgent;
let others: FakeAgent[];
let fake: FakeOpenAI;
let gateway: OpenAiCompatibleGateway;
let llm: TestSwitchboard;
let offline: TestSwitchboard;

beforeAll(async () => {
  weather = await startFakeAgent(sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } }));
  others = await Promise.all([0, 1, 2].map(() => startFakeAgent(jsonReply({ output: {} }))));
  const yaml = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url }, { answerCacheTtlS: 0 });
  fake = await startFakeOpenAI();
  gateway = createLlmGateway({
    baseUrl: fake.baseUrl,
    model: 'fake-main',
    smallModel: 'fake-small',
    logger: silentLogger,
    timeoutMs: 3000,
    maxRetries: 0,
    breaker: false,
    retryPolicy: { baseDelayMs: 5, maxDelayMs: 20, random: () => 0.5 },
  });
  llm = await startTestSwitchboard({ registryYaml: yaml, llm: gateway, now: () => NOW });
  offline = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
});

afterAll(async () => {
  await llm.close();
  await offline.close();
  gateway.close();
  await fake.close();
  await Promise.all([weather, ...others].map((agent) => agent.close()));
});

afterEach(() => fake.assertComplete());

/** The model's intent reply for a weather question (each test asks in other words: the intent cache must not answer). */
const weatherIntent = (query: string): ScriptedReplySpec => ({
  content: {
    kind: 'business',
    intent: ['weather_agent'],
    confidence: 'high',
    reason: 'scripted',
    rewritten_query: query,
    user_friendly_message: '明白了！',
    task_plan: { sub_tasks: [{ task_id: 'task_1', description: '查询北京明天的天气', assigned_agent: 'weather_agent', inputs: { city: '北京', date: TOMORROW }, dependencies: [] }] },
  },
  usage: false,
});

interface Seen {
  event: BaseEvent & Record<string, unknown>;
  at: number;
}

/** One run through the stock HttpAgent; every event with the time it arrived. */
async function runAgui(board: TestSwitchboard, threadId: string, query: string) {
  const agent = new HttpAgent({ url: `${board.url}/v1/agui`, threadId, initialMessages: [{ id: `u-${threadId}`, role: 'user', content: query }] });
  const seen: Seen[] = [];
  await agent.runAgent({ runId: `run-${threadId}`, forwardedProps: { user_id: 'agui-deltas' } }, { onEvent: ({ event }) => void seen.push({ event: event as Seen['event'], at: Date.now() }) });
  const events = seen.map((entry) => entry.event);
  // Every event is valid by the SDK's schema, and the whole stream passes the SDK's verifier once more on its own.
  for (const event of events) expect(EventSchemas.safeParse(event).success, JSON.stringify(event)).toBe(true);
  await expect(lastValueFrom(from(events).pipe(verifyEvents(false), toArray()))).resolves.toHaveLength(events.length);
  const contents = seen.filter((entry) => entry.event.type === 'TEXT_MESSAGE_CONTENT');
  const answers = agent.messages.filter((message) => message.role === 'assistant');
  return { agent, events, contents, answers };
}

describe('AG-UI text deltas', () => {
  it('sends one TEXT_MESSAGE_CONTENT per streamed piece, as they arrive; together they are the answer', async () => {
    const query = '北京明天天气怎么样';
    fake.push(weatherIntent(query), { streamChunks: CHUNKS, chunkDelayMs: 250, usage: false });
    const { events, contents, answers } = await runAgui(llm, 'agui-deltas-1', query);
    expect(contents.length).toBeGreaterThanOrEqual(3);
    const messageIds = new Set(contents.map((entry) => entry.event.messageId));
    expect(messageIds.size).toBe(1);
    const streamed = contents.map((entry) => entry.event.delta as string).join('');
    expect(streamed).toBe(CHUNKS.join(''));
    expect(answers).toHaveLength(1);
    expect(answers[0]!.content).toBe(streamed);
    // Sent as they were streamed, not gathered first: the pieces arrive spread over the model's stream (the
    // pipeline may hold a piece back while a secret could still be split, so less than the whole second).
    expect(contents.at(-1)!.at - contents[0]!.at).toBeGreaterThanOrEqual(250);
    const types = events.map((event) => String(event.type));
    expect(types.filter((type) => type === 'TEXT_MESSAGE_START')).toHaveLength(1);
    expect(types.indexOf('TEXT_MESSAGE_END')).toBeGreaterThan(types.lastIndexOf('TEXT_MESSAGE_CONTENT'));
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types).not.toContain('MESSAGES_SNAPSHOT');
  });

  it('puts the complete answer in place with MESSAGES_SNAPSHOT when the stream broke and the answer was composed without it', async () => {
    const query = '请问北京明天的天气';
    fake.push(weatherIntent(query), { streamChunks: ['北京明天', '天气', '晴', '……'], truncateStream: true, usage: false });
    const { agent, events, contents, answers } = await runAgui(llm, 'agui-deltas-2', query);
    const streamed = contents.map((entry) => entry.event.delta as string).join('');
    const snapshot = events.find((event) => event.type === 'MESSAGES_SNAPSHOT') as { messages: { id: string; role: string; content?: unknown }[] } | undefined;
    expect(snapshot).toBeDefined();
    const complete = snapshot!.messages.find((message) => message.role === 'assistant')!;
    expect(complete.id).toBe(contents[0]!.event.messageId);
    expect(complete.content).not.toBe(streamed);
    expect(String(complete.content)).toContain('晴');
    // The client ends with its own message and the complete answer, once.
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(answers[0]!.content).toBe(complete.content);
  });

  it('sends the composed answer whole without a model', async () => {
    const { contents, answers } = await runAgui(offline, 'agui-deltas-3', '北京明天天气怎么样');
    expect(contents).toHaveLength(1);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.content).toBe(contents[0]!.event.delta);
    expect(String(answers[0]!.content)).toContain('晴');
  });
});
