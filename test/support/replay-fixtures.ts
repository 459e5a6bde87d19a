/**
 * A commented registry and a week of served turns for the replay and review
 * tests (test/scenarios/replay-registry-edits.test.ts, the guide's test):
 * weather, hotel and flight agents; the flight agent fails, so two turns of
 * one session fail and the second escalates. The messages were chosen so that
 * two edits move known turns: the example "明天出门要带伞吗" added to the weather
 * agent moves that message from none to it, and the careless keyword 民宿 on
 * the flight agent takes the hotel agent's two 民宿 turns. Each message is
 * routed with confidence (none is a close call a recogniser could ask about),
 * so the moves are the edits' alone.
 */
import { jsonReply, startFakeAgent, statusReply, type FakeAgent } from './fake-agent.js';
import { startTestSwitchboard, type TestSwitchboard } from './switchboard-harness.js';

/** The registry as a platform team might keep it: comments, flow lists, blank lines. */
export function replayRegistry(urls: { weather: string; hotel: string; flight: string }): string {
  return `# Travel registry (replay scenario): weather, hotel and flight sub-agents.
version: 1

supervisor:
  memory_max_history: 5   # short memory is enough here
  escalate_after_failures: 2

agents:
  # Weather: read-only forecasts.
  - id: weather_agent
    name: { zh: 天气查询, en: Weather }
    description:
      zh: 城市天气预报查询。
      en: City weather forecast.
    examples:
      - 北京明天天气怎么样
      - 上海这周会下雨吗
      - what's the weather in Hangzhou tomorrow
      - is it going to rain in Shanghai this weekend   # English phrasing
    keywords: [天气, 下雨, weather, forecast, rain]   # forecast words only
    endpoint:
      url: ${urls.weather}
      protocol: http-json
      retries: 0

  # Hotel: search and booking.
  - id: hotel_agent
    name: { zh: 酒店服务, en: Hotel booking }
    description:
      zh: 酒店查询与预订。
      en: Hotel search and booking.
    examples:
      - 帮我订北京的酒店
      - book a hotel in Shanghai
      - I need a room for three nights in Guangzhou
      - 有没有干净的民宿
      - 杭州的民宿推荐一下
      - 找个便宜的民宿住两晚
      - where can I stay near West Lake in Hangzhou
    keywords: [酒店, 住宿, hotel, room]
    endpoint:
      url: ${urls.hotel}
      protocol: http-json
      retries: 0

  # Flight: tickets.
  - id: flight_agent
    name: { zh: 机票服务, en: Flights }
    description:
      zh: 机票查询与预订。
      en: Flight search and booking.
    examples:
      - 帮我查一下明天去上海的机票
      - book a flight to Beijing
    keywords: [机票, 航班, flight, plane]
    endpoint:
      url: ${urls.flight}
      protocol: http-json
      retries: 0
`;
}

/** The turns served: [session, message]. The phone number is stored masked. */
export const SERVED_TURNS: readonly (readonly [string, string])[] = [
  ['s1', '明天出门要带伞吗'],
  ['s2', '有没有便宜的民宿'],
  ['s3', '杭州的民宿推荐一个'],
  ['s4', '帮我订北京的酒店，电话13812345678'],
  ['s5', '北京明天天气怎么样'],
  ['s6', 'book a hotel in Suzhou'],
  ['s7', '你好'],
  ['esc', 'book a flight to Beijing'],
  ['esc', 'book a flight to Beijing'],
];

/** A served store: the switchboard (its SQLite file in `dir`) and the fake agents. */
export interface ServedStore {
  board: TestSwitchboard;
  agents: FakeAgent[];
  registry: string;
  close(): Promise<void>;
}

/** Starts the fake agents and a Switchboard on the registry, and serves every turn of `SERVED_TURNS`. */
export async function serveReplayTurns(): Promise<ServedStore> {
  const weather = await startFakeAgent(jsonReply({ output: { forecast: 'sunny' }, message: '晴' }));
  const hotel = await startFakeAgent(jsonReply({ output: { hotels: [] }, message: '已为您查询酒店' }));
  const flight = await startFakeAgent(statusReply(503));
  const registry = replayRegistry({ weather: weather.url, hotel: hotel.url, flight: flight.url });
  const board = await startTestSwitchboard({ registryYaml: registry });
  for (const [session, message] of SERVED_TURNS) await board.chat(message, { sessionId: session });
  return {
    board,
    agents: [weather, hotel, flight],
    registry,
    async close() {
      await board.close();
      for (const agent of [weather, hotel, flight]) await agent.close();
    },
  };
}

/** Runs a command module in this process; resolves with its exit code and output. */
export async function runCliCommand(
  module: { runCommand(args: string[], io: { stdout(text: string): void; stderr(text: string): void; env: Record<string, string | undefined>; cwd: string }): Promise<number> },
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await module.runCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env: options.env, cwd: options.cwd });
  return { code, stdout, stderr };
}
