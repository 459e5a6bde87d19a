/**
 * Operations view of real turns: `/metrics` counts turns by what really
 * happened (completed, partial, failed, input_required), agent calls by agent
 * and status, stage latencies, the registry version and agent health; every
 * log line written during a turn carries its trace id, and a caller's
 * `x-trace-id` reaches the sub-agents.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTraceContext } from '../../src/trace-context.js';
import { startFakeAgent, statusReply, type FakeAgent } from '../support/fake-agent.js';
import { startDemoSwitchboard, type DemoSwitchboard } from '../support/demo-switchboard.js';
import type { TestSwitchboard } from '../support/switchboard-harness.js';

let running: DemoSwitchboard;
let brokenWeather: FakeAgent;
let board: TestSwitchboard;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  brokenWeather = await startFakeAgent(statusReply(503, 'down'));
  const traceContext = createTraceContext();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'debug', mixin: () => (traceContext.current() ? { traceId: traceContext.current() } : {}) }, sink);
  running = await startDemoSwitchboard({ logger, traceContext, replace: { weather: brokenWeather.url } });
  board = running.board;
});
afterAll(async () => {
  await running?.close();
  await brokenWeather?.close();
});

async function turn(query: string, sessionId: string, traceId?: string) {
  const response = await fetch(`${board.url}/v1/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(traceId ? { 'x-trace-id': traceId } : {}) },
    body: JSON.stringify({ query, user_id: 'ops', session_id: sessionId }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

it('counts turns by their real outcome, with per-stage latency, agent outcomes, registry version and health', async () => {
  await turn('帮我订北京的酒店，明天入住', 'ops-completed');
  await turn('帮我订酒店', 'ops-input');
  await turn('北京明天天气怎么样', 'ops-failed');
  await turn('帮我订北京的酒店，明天入住，再告诉我北京明天的天气', 'ops-partial');
  const text = await (await fetch(`${board.url}/metrics`)).text();
  for (const outcome of ['completed', 'input_required', 'failed', 'partial']) {
    expect(text, outcome).toMatch(new RegExp(`^switchboard_turns_total\\{outcome="${outcome}"\\} 1$`, 'm'));
  }
  expect(text).toMatch(/^switchboard_agent_calls_total\{agent="weather_agent",outcome="http_status"\} 2$/m);
  expect(text).toMatch(/^switchboard_agent_calls_total\{agent="hotel_agent",outcome="completed"\} 2$/m);
  expect(text).toMatch(/^switchboard_stage_duration_seconds_count\{stage="execute"\} [1-9]/m);
  expect(text).toMatch(/^switchboard_registry_version_info\{version="[0-9a-f]{12}"\} 1$/m);
  expect(text).toMatch(/^switchboard_agent_health\{agent="weather_agent"\} 0$/m);
  expect(text).toMatch(/^switchboard_agent_health\{agent="hotel_agent"\} 1$/m);
  expect(text).toMatch(/^switchboard_agent_health\{agent="flight_agent"\} -1$/m);
});

it("every log line of a turn carries its trace id, and the caller's x-trace-id reaches the sub-agent", async () => {
  const before = lines.length;
  const calls = brokenWeather.calls.length;
  await turn('上海明天天气怎么样', 'ops-trace', 'trace-ops-123');
  const turnLines = lines.slice(before);
  expect(turnLines.length).toBeGreaterThan(1);
  expect(turnLines.filter((line) => line.traceId !== 'trace-ops-123')).toEqual([]);
  expect(turnLines.some((line) => line.msg === 'sub-agent call failed')).toBe(true);
  const call = brokenWeather.calls[calls]!;
  expect(call.headers['x-trace-id']).toBe('trace-ops-123');
  expect((call.body as { trace_id: string }).trace_id).toBe('trace-ops-123');
});
