/**
 * W3C trace context and OpenTelemetry over real HTTP (docs/api.md#streams-and-trace-context). With `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an in-process OTLP
 * receiver (a plain `POST /v1/traces` server, JSON bodies), an LLM-mode turn
 * started with a caller's `traceparent` is one trace under that caller: the
 * turn span is the caller's child, stages, the sub-agent call and the model
 * calls (intent, verify, answer) are the turn's children, and the sub-agent's own span (made by an
 * instrumented fake from the `traceparent` it received) is a child of our
 * sub-agent call span. A turn without a `traceparent` is one trace of its own.
 * With OpenTelemetry off, requests still carry a child `traceparent`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLlmGateway, type OpenAiCompatibleGateway } from '../../src/llm/index.js';
import { silentLogger } from '../../src/logger.js';
import { createOtelSpanTracer } from '../../src/telemetry/otel-span-tracer.js';
import { startTelemetry, type StartedTelemetry } from '../../src/telemetry/start-otel.js';
import { parseTraceparent, w3cTraceId } from '../../src/trace-context.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReplySpec } from '../support/fake-openai.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** One span as the OTLP/HTTP JSON exporter sends it. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

/** A plain OTLP receiver: every span of every `POST /v1/traces`. */
async function startOtlpReceiver(): Promise<{ url: string; spans: ExportedSpan[]; paths: string[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function intentReply(city: string, query: string): ScriptedReplySpec {
  return {
    content: {
      kind: 'business',
      intent: ['hotel_agent'],
      confidence: 'high',
      reason: 'scripted',
      rewritten_query: query,
      user_friendly_message: '明白了！',
      task_plan: { sub_tasks: [{ task_id: 'task_1', description: '订酒店', assigned_agent: 'hotel_agent', inputs: { city, check_in_date: TOMORROW }, dependencies: [] }] },
    },
    usage: false,
  };
}

/** The verify step's reply: the results answer the request. */
const VERIFY_OK: ScriptedReplySpec = { content: { sufficient: true, retry: [], reason: 'ok' }, usage: false };

async function postTurn(url: string, query: string, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(`${url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query, user_id: 'tracer' }),
  });
  expect(response.status).toBe(200);
  await response.json();
  return response;
}

describe('trace context with OpenTelemetry exporting to an OTLP receiver', () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let telemetry: StartedTelemetry;
  let hotel: FakeAgent;
  let fake: FakeOpenAI;
  let gateway: OpenAiCompatibleGateway;
  let board: TestSwitchboard;
  const hotelSpans = new InMemorySpanExporter();
  const hotelProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(hotelSpans)] });

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    telemetry = await startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, { version: 'test' });
    // An instrumented sub-agent: its handling span continues the traceparent it was sent.
    const hotelTracer = createOtelSpanTracer(hotelProvider.getTracer('hotel-service'));
    hotel = await startFakeAgent((_body, _index, call) => {
      hotelTracer.startSpan('hotel.invoke', { parent: parseTraceparent(call.headers.traceparent), role: 'server' }).end();
      return jsonReply({ output: { booking_id: 'HB-7' }, message: '已为您预订酒店。' });
    });
    fake = await startFakeOpenAI();
    gateway = createLlmGateway({ baseUrl: fake.baseUrl, model: 'fake-main', logger: silentLogger, timeoutMs: 3000, breaker: false, tracing: telemetry.tracing });
    board = await startTestSwitchboard({ registryYaml: sampleRegistry('agents_config.yaml', { 7101: hotel.url }, { answerCacheTtlS: 0 }), llm: gateway, tracing: telemetry.tracing, now: () => NOW });
  }, 30_000);

  afterAll(async () => {
    await board?.close();
    gateway?.close();
    await fake?.close();
    await hotel?.close();
    await telemetry?.shutdown();
    await receiver?.close();
  });

  it('continues the caller’s traceparent: one trace, the turn under the caller, every stage and call under the turn, the sub-agent’s span under our call', async () => {
    const query = '帮我订北京的酒店，明天入住';
    fake.push(intentReply('北京', query), VERIFY_OK, { content: '已为您预订北京的酒店，订单 HB-7。', usage: false });
    const response = await postTurn(board.url, query, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    fake.assertComplete();
    expect(response.headers.get('x-trace-id')).toBe(CALLER_TRACE);
    await telemetry.flush();
    expect(receiver.paths.every((path) => path.startsWith('POST /v1/traces application/json'))).toBe(true);

    const spans = receiver.spans.filter((span) => span.traceId === CALLER_TRACE);
    expect(spans.length).toBe(receiver.spans.length);
    const turn = spans.filter((span) => span.name === 'switchboard.turn');
    expect(turn).toHaveLength(1);
    expect(turn[0]!.parentSpanId).toBe(CALLER_SPAN);
    const children = (name: string) => spans.filter((span) => span.name === name);
    const stages = spans.filter((span) => span.name.startsWith('switchboard.stage.')).map((span) => span.name);
    expect(stages).toEqual(expect.arrayContaining(['switchboard.stage.intent', 'switchboard.stage.plan', 'switchboard.stage.summarize']));
    const agentCalls = children('switchboard.agent_call');
    const modelCalls = children('switchboard.model_call');
    expect(agentCalls).toHaveLength(1);
    expect(modelCalls).toHaveLength(3);
    for (const span of spans.filter((span) => span.name !== 'switchboard.turn')) expect(span.parentSpanId, span.name).toBe(turn[0]!.spanId);

    // The sub-agent received a child traceparent (our call span) and the x-trace-id; its own span is our call span's child.
    const call = hotel.calls.at(-1)!;
    expect(call.headers['x-trace-id']).toBe(CALLER_TRACE);
    expect(call.headers.traceparent).toBe(`00-${CALLER_TRACE}-${agentCalls[0]!.spanId}-01`);
    const [hotelSpan] = hotelSpans.getFinishedSpans();
    expect(hotelSpan!.spanContext().traceId).toBe(CALLER_TRACE);
    expect(hotelSpan!.parentSpanContext?.spanId).toBe(agentCalls[0]!.spanId);

    // Each model request carried its own model-call span as traceparent, and the x-trace-id.
    const modelRequests = fake.requests.slice(-3);
    expect(modelRequests.map((request) => request.headers['x-trace-id'])).toEqual([CALLER_TRACE, CALLER_TRACE, CALLER_TRACE]);
    expect(modelRequests.map((request) => parseTraceparent(request.headers.traceparent)?.spanId).sort()).toEqual(modelCalls.map((span) => span.spanId).sort());
  });

  it('a turn without a traceparent is one trace of its own', async () => {
    const before = receiver.spans.length;
    const query = '帮我订上海的酒店，明天入住';
    fake.push(intentReply('上海', query), VERIFY_OK, { content: '已为您预订上海的酒店，订单 HB-7。', usage: false });
    await postTurn(board.url, query);
    fake.assertComplete();
    await telemetry.flush();
    const spans = receiver.spans.slice(before);
    const traces = new Set(spans.map((span) => span.traceId));
    expect(traces.size).toBe(1);
    expect(traces.has(CALLER_TRACE)).toBe(false);
    const turn = spans.find((span) => span.name === 'switchboard.turn')!;
    expect(turn.parentSpanId ?? '').toBe('');
    expect(spans.filter((span) => span.name === 'switchboard.agent_call')).toHaveLength(1);
    expect(parseTraceparent(hotel.calls.at(-1)!.headers.traceparent)?.traceId).toBe(turn.traceId);
  });
});

describe('trace context with OpenTelemetry off', () => {
  let hotel: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    hotel = await startFakeAgent(jsonReply({ output: { booking_id: 'HB-8' }, message: '已为您预订酒店。' }));
    board = await startTestSwitchboard({ registryYaml: sampleRegistry('agents_config.yaml', { 7101: hotel.url }, { answerCacheTtlS: 0 }), now: () => NOW });
  });
  afterAll(async () => {
    await board?.close();
    await hotel?.close();
  });

  it('still passes a child traceparent on, under the caller’s trace or the turn’s own x-trace-id', async () => {
    const caller = await postTurn(board.url, '帮我订北京的酒店，明天入住', { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(caller.headers.get('x-trace-id')).toBe(CALLER_TRACE);
    const continued = parseTraceparent(hotel.calls.at(-1)!.headers.traceparent)!;
    expect(continued.traceId).toBe(CALLER_TRACE);
    expect(continued.spanId).not.toBe(CALLER_SPAN);
    expect(hotel.calls.at(-1)!.headers['x-trace-id']).toBe(CALLER_TRACE);

    await postTurn(board.url, '帮我订上海的酒店，明天入住', { 'x-trace-id': 'order-flow-42' });
    const own = parseTraceparent(hotel.calls.at(-1)!.headers.traceparent)!;
    expect(own.traceId).toBe(w3cTraceId('order-flow-42'));
    expect(hotel.calls.at(-1)!.headers['x-trace-id']).toBe('order-flow-42');

    // A malformed traceparent is ignored, never an error.
    const bad = await postTurn(board.url, '帮我订广州的酒店，明天入住', { traceparent: '00-zz-11-01' });
    expect(bad.headers.get('x-trace-id')).not.toBe('00-zz-11-01');
  });
});
