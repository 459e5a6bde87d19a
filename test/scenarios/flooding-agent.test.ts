/**
 * A chatty or hostile streaming sub-agent over real HTTP SSE: thousands of
 * `progress` events, or a few very large ones. The client gets at most the
 * turn's caps of `agent_stream` progress; the rest is dropped and counted in
 * `/metrics`; the agent's result, the answer and `done` still arrive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { DEFAULT_STREAM_CAPS } from '../../src/turn/stream-caps.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';
const WEATHER_QUERY = '北京明天的天气怎么样';
const result = (city: string) => ({ status: 'completed', output: { city, forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: `${city}明天晴，最高8度。` });

/**
 * The weather agent's reply per call: thousands of small events (Beijing), then
 * sixty large ones (Shanghai), then three megabytes (Guangzhou); another city
 * each time, so no cache answers a later turn.
 */
const FLOODS = [
  sseReply({ progress: Array.from({ length: 3000 }, (_, index) => `查询进度 ${index + 1}`), result: result('北京') }),
  sseReply({ progress: Array.from({ length: 60 }, (_, index) => `${index}:${'很'.repeat(2000)}`), result: result('上海') }),
  sseReply({ progress: Array.from({ length: 300 }, () => 'z'.repeat(10_000)), result: result('广州') }),
];

async function counter(board: TestSwitchboard, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${board.url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

function expectResultArrived(events: readonly ResponseState[], city: string): void {
  const done = stageEvents(events, 'agent_done');
  expect(done).toHaveLength(1);
  expect(done[0]).toMatchObject({ agent_id: 'weather_agent', metadata: { state: { status: 'completed' } } });
  const final = events.find((event) => event.metadata.stage === 'final' && event.metadata.state?.delta !== true);
  expect(final?.content).toContain(`${city}明天晴`);
  expect(events.at(-1)!.type).toBe('done');
}

describe('a sub-agent that floods its progress stream', () => {
  let weather: FakeAgent;
  let others: FakeAgent[];
  let board: TestSwitchboard;
  beforeAll(async () => {
    weather = await startFakeAgent((_body, index) => FLOODS[index] ?? jsonReply());
    others = [await startFakeAgent(jsonReply()), await startFakeAgent(jsonReply()), await startFakeAgent(jsonReply())];
    const yaml = sampleRegistry('agents_config.yaml', { 7101: others[0]!.url, 7102: others[1]!.url, 7103: others[2]!.url, 7104: weather.url });
    board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  });
  afterAll(async () => {
    await board.close();
    await Promise.all([weather, ...others].map((agent) => agent.close()));
  });

  it('relays at most the per-turn number of progress events; the result still arrives', async () => {
    const events = await board.chat(WEATHER_QUERY, { sessionId: 'flood-events' });
    expect(weather.calls).toHaveLength(1);
    const streamed = stageEvents(events, 'agent_stream');
    expect(streamed).toHaveLength(DEFAULT_STREAM_CAPS.maxEventsPerTurn);
    // The first ones go out in order; everything after the cap is dropped.
    expect(streamed[0]!.content).toBe('查询进度 1');
    expect(streamed.at(-1)!.content).toBe(`查询进度 ${DEFAULT_STREAM_CAPS.maxEventsPerTurn}`);
    expectResultArrived(events, '北京');
    // Sequence numbers stay gapless: dropped events were never numbered.
    expect(events.map((event) => event.metadata.seq)).toEqual(events.map((_, index) => index + 1));
    const dropped = 3000 - DEFAULT_STREAM_CAPS.maxEventsPerTurn;
    expect(events.at(-1)!.metadata.state?.agent_stream_dropped).toEqual({ events_per_turn: dropped, agent_stream_bytes: 0 });

    expect(await counter(board, 'switchboard_agent_stream_dropped_total', 'cap="events_per_turn"')).toBe(dropped);
    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="events_per_turn"')).toBe(1);
  });

  it('relays at most the per-agent bytes of progress; the result still arrives', async () => {
    const events = await board.chat('上海明天的天气怎么样', { sessionId: 'flood-bytes' });
    expect(weather.calls).toHaveLength(2);
    const streamed = stageEvents(events, 'agent_stream');
    const bytes = streamed.reduce((total, event) => total + Buffer.byteLength(event.content, 'utf8'), 0);
    expect(bytes).toBeLessThanOrEqual(DEFAULT_STREAM_CAPS.maxBytesPerAgent);
    // Each event is 6 000-odd bytes: ten fit under 64 KiB, the other fifty are dropped whole.
    expect(streamed).toHaveLength(10);
    expect(streamed.every((event) => event.content.endsWith('很'))).toBe(true);
    expectResultArrived(events, '上海');
    expect(events.at(-1)!.metadata.state?.agent_stream_dropped).toEqual({ events_per_turn: 0, agent_stream_bytes: 50 });

    expect(await counter(board, 'switchboard_agent_stream_dropped_total', 'cap="agent_stream_bytes"')).toBe(50);
    expect(await counter(board, 'switchboard_guard_stops_total', 'guard="agent_stream_bytes"')).toBe(1);
  });

  it('reads megabytes of progress to the result, relaying only its share', async () => {
    const events = await board.chat('广州明天的天气怎么样', { sessionId: 'flood-megabytes' });
    expect(weather.calls).toHaveLength(3);
    const streamed = stageEvents(events, 'agent_stream');
    expect(streamed).toHaveLength(6);
    expectResultArrived(events, '广州');
    expect(events.at(-1)!.metadata.state?.agent_stream_dropped).toEqual({ events_per_turn: 0, agent_stream_bytes: 294 });
  });
});
