/**
 * Whole turns over real HTTP: the sample travel registry pointed at fake
 * sub-agents on 127.0.0.1, the real graph, SQLite and SSE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hangReply, jsonReply, rawReply, sseReply, startFakeAgent, statusReply, type FakeAgent, type FakeBehaviour } from '../support/fake-agent.js';
import { finalEvent, sampleRegistry, stageEvents, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import { stageRow, type ResponseState } from '../../src/events/index.js';

const AGENT_IDS = ['hotel_agent', 'limo_agent', 'flight_agent', 'weather_agent'];
const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';

const hotelOk = jsonReply({
  output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' },
  message: '已为您预订北京饭店。',
  delayMs: 150,
});
const limoOk = jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00', destination: '北京饭店' }, message: '王师傅将在7点接您。' });
const weatherOk = sseReply({
  progress: ['正在查询北京的天气…'],
  result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' },
  intervalMs: 50,
});
const flightOk = jsonReply({ output: { flights: [{ flight_no: 'CA1501', departure: '08:00', arrival: '10:10', price: 1200 }] } });

interface Fleet {
  hotel: FakeAgent;
  limo: FakeAgent;
  flight: FakeAgent;
  weather: FakeAgent;
  board: TestSwitchboard;
  close(): Promise<void>;
}

async function startFleet(behaviours: Partial<Record<'hotel' | 'limo' | 'flight' | 'weather', FakeBehaviour>> = {}, edit: (yaml: string) => string = (yaml) => yaml): Promise<Fleet> {
  const hotel = await startFakeAgent(behaviours.hotel ?? hotelOk);
  const limo = await startFakeAgent(behaviours.limo ?? limoOk);
  const flight = await startFakeAgent(behaviours.flight ?? flightOk);
  const weather = await startFakeAgent(behaviours.weather ?? weatherOk);
  const yaml = edit(sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: limo.url, 7103: flight.url, 7104: weather.url }, { answerCacheTtlS: 0 }));
  const board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
  return {
    hotel,
    limo,
    flight,
    weather,
    board,
    async close() {
      await board.close();
      await Promise.all([hotel, limo, flight, weather].map((agent) => agent.close()));
    },
  };
}

function expectNoInternalIds(events: readonly ResponseState[]): void {
  for (const event of events) for (const id of AGENT_IDS) expect(event.content).not.toContain(id);
}

function stages(events: readonly ResponseState[]): string[] {
  return events.map((event) => event.metadata.stage);
}

describe('travel turns', () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet();
  });
  afterAll(() => fleet.close());

  it('runs two independent intents in parallel and streams stages in order', async () => {
    const events = await fleet.board.chat('帮我订北京的酒店，明天入住，再告诉我北京明天的天气', { sessionId: 'parallel-1' });
    const order = stages(events);
    expect(order.slice(0, 4)).toEqual(['intent_start', 'intent_done', 'plan_start', 'plan_done']);
    expect(order.slice(-3)).toEqual(['summarize_start', 'final', 'done']);
    expect(events.at(-1)!.type).toBe('done');
    expect(events.map((event) => event.metadata.seq)).toEqual(events.map((_, index) => index + 1));
    const timings = (events.at(-1)!.metadata.state as { timings_ms: Record<string, number> }).timings_ms;
    expect(Object.keys(timings)).toEqual(['init', 'load_profile', 'control', 'recognize_intent', 'plan', 'fill_from_profile', 'semantic_check', 'recall_answer', 'execute', 'verify', 'summarize']);
    expect(timings.execute).toBeGreaterThanOrEqual(100); // the hotel fake answers after 150 ms
    const plan = stageEvents(events, 'plan_done')[0]!.metadata.state!.task_plan as { task_type: string; sub_tasks: { assigned_agent: string }[] };
    expect(plan.task_type).toBe('parallel');
    expect(plan.sub_tasks.map((task) => task.assigned_agent).sort()).toEqual(['hotel_agent', 'weather_agent']);
    // Both started before either finished: they ran concurrently.
    const firstDone = order.indexOf('agent_done');
    expect(stageEvents(events.slice(0, firstDone), 'agent_start')).toHaveLength(2);
    expect(stageEvents(events, 'agent_stream').map((event) => event.content)).toContain('正在查询北京的天气…');
    const hotelCall = fleet.hotel.calls.at(-1)!.body as { inputs: Record<string, unknown>; thread_id: string; user_id: string };
    expect(hotelCall.inputs).toMatchObject({ city: '北京', check_in_date: TOMORROW });
    expect(hotelCall.thread_id).toBe('parallel-1');
    expect(fleet.hotel.calls.at(-1)!.headers.authorization).toBe('Bearer demo-token');
    const final = finalEvent(events);
    expect(final.is_thinking).toBe(false);
    expect(final.agent_id).toBe('summarize');
    expect(final.content).toContain('北京饭店');
    expect(final.content).toContain('北京明天晴');
    expectNoInternalIds(events);
    // Every event is what the stage table says of its stage: thinking or not, and who speaks.
    for (const event of events) {
      const row = stageRow(event.metadata.stage)!;
      expect([event.metadata.stage, event.is_thinking]).toEqual([event.metadata.stage, row.isThinking]);
      expect(row.speakers.some((speaker) => (speaker === 'sub-agent' ? AGENT_IDS.includes(event.agent_id) : speaker === event.agent_id))).toBe(true);
    }
  });

  it('runs the airport transfer after the hotel in a mixed plan and passes the hotel output upstream', async () => {
    const events = await fleet.board.chat('帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气', { sessionId: 'mixed-1' });
    const plan = stageEvents(events, 'plan_done')[0]!.metadata.state!.task_plan as {
      task_type: string;
      sub_tasks: { task_id: string; assigned_agent: string; dependencies: string[] }[];
    };
    expect(plan.task_type).toBe('mixed');
    const hotelTask = plan.sub_tasks.find((task) => task.assigned_agent === 'hotel_agent')!;
    const limoTask = plan.sub_tasks.find((task) => task.assigned_agent === 'limo_agent')!;
    expect(limoTask.dependencies).toEqual([hotelTask.task_id]);
    const hotelDone = events.findIndex((event) => event.metadata.stage === 'agent_done' && event.agent_id === 'hotel_agent');
    const limoStart = events.findIndex((event) => event.metadata.stage === 'agent_start' && event.agent_id === 'limo_agent');
    expect(hotelDone).toBeGreaterThan(0);
    expect(limoStart).toBeGreaterThan(hotelDone);
    const limoCall = fleet.limo.calls.at(-1)!.body as { message: string; upstream: Record<string, { agent: string; output: { booking_id: string } }>; inputs: Record<string, unknown> };
    // Each agent gets its own part of the request as the sub-task text.
    expect(limoCall.message).toContain('接机');
    expect(limoCall.message).not.toContain('天气');
    expect(limoCall.upstream[hotelTask.task_id]).toMatchObject({ agent: 'hotel_agent', output: { booking_id: 'HB-1' } });
    expect(limoCall.inputs).toMatchObject({ airport: '首都机场', date: TOMORROW });
    // An optional `format: date` input is read from the text as well.
    expect((fleet.weather.calls.at(-1)!.body as { inputs: unknown }).inputs).toEqual({ city: '北京', date: TOMORROW });
    expect(finalEvent(events).content).toContain('王师傅');
    expectNoInternalIds(events);
  });

  it('parks a task missing keys, names them with widgets, and completes it next turn', async () => {
    const before = fleet.hotel.calls.length;
    // A user of its own: earlier tests taught user u1's profile the usual city.
    const first = await fleet.board.chat('帮我订酒店', { sessionId: 'missing-1', userId: 'u-missing' });
    expect(fleet.hotel.calls.length).toBe(before);
    const final = finalEvent(first);
    expect(final.metadata.semantic_info).toEqual([
      { type: 'miss', sub_agent_id: 'hotel_agent', keys: ['city', 'check_in_date'], key_descriptions: ['入住城市', '入住日期'], fe_widgets_suggestion: ['city_selector', 'date_picker'],
        key_options: [expect.arrayContaining(['北京', '上海']), []] },
    ]);
    expect(stageEvents(first, 'plan_done')[0]!.metadata.semantic_info).toHaveLength(1);
    expect(final.content).toContain('入住城市');
    expect(final.content).toContain('北京');
    expectNoInternalIds(first);

    const second = await fleet.board.chat('北京，明天', { sessionId: 'missing-1', userId: 'u-missing' });
    expect(fleet.hotel.calls.length).toBe(before + 1);
    expect((fleet.hotel.calls.at(-1)!.body as { inputs: unknown }).inputs).toMatchObject({ city: '北京', check_in_date: TOMORROW });
    expect(finalEvent(second).metadata.semantic_info ?? []).toEqual([]);
    expect(finalEvent(second).content).toContain('北京饭店');
  });

  it('reports a present but invalid key as invalid', async () => {
    const events = await fleet.board.chat('帮我订北京的酒店，13月40日入住', { sessionId: 'invalid-1' });
    const info = finalEvent(events).metadata.semantic_info ?? [];
    expect(info).toContainEqual(expect.objectContaining({ type: 'invalid', sub_agent_id: 'hotel_agent', keys: ['check_in_date'], fe_widgets_suggestion: ['date_picker'] }));
  });

  it('answers simple intents directly without a plan', async () => {
    const events = await fleet.board.chat('你好', { sessionId: 'hello-1' });
    expect(stages(events)).toEqual(['intent_start', 'intent_done', 'final', 'done']);
    expect(finalEvent(events).agent_id).toBe('supervisor');
    const help = await fleet.board.chat('你能做什么', { sessionId: 'hello-1' });
    expect(finalEvent(help).content).toContain('酒店服务');
    expectNoInternalIds(help);
  });

  it('escalates to a human on request', async () => {
    const events = await fleet.board.chat('转人工', { sessionId: 'human-1' });
    const escalate = stageEvents(events, 'escalate');
    expect(escalate).toHaveLength(1);
    expect(escalate[0]!.is_thinking).toBe(false);
    expect(escalate[0]!.metadata.state).toHaveProperty('escalation_card');
  });

  it('keeps concurrent turns of different sessions apart and refuses a second turn on a busy session', async () => {
    const sessions = ['c-1', 'c-2', 'c-3', 'c-4'];
    const results = await Promise.all(sessions.map((sessionId) => fleet.board.chat('帮我订北京的酒店，明天入住', { sessionId, userId: `user-${sessionId}` })));
    results.forEach((events, index) => {
      expect(events.every((event) => event.session_id === sessions[index])).toBe(true);
      expect(events.at(-1)!.type).toBe('done');
      expect(finalEvent(events).content).toContain('北京饭店');
    });

    const busy = fleet.board.chat('帮我订北京的酒店，明天入住', { sessionId: 'busy-1' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = await fetch(`${fleet.board.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '你好', user_id: 'u1', session_id: 'busy-1' }),
    });
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('TURN_IN_PROGRESS');
    await busy;
  });

  it('returns the whole turn as JSON and keeps the transcript for its owner only', async () => {
    const response = await fetch(`${fleet.board.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '北京明天天气怎么样', user_id: 'owner', session_id: 'json-1' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { session_id: string; final_answer: string; events: ResponseState[] };
    expect(body.session_id).toBe('json-1');
    expect(body.final_answer).toContain('北京明天晴');
    expect(body.events.at(-1)!.type).toBe('done');
    const mine = await fetch(`${fleet.board.url}/v1/sessions/json-1/messages?user_id=owner`);
    const transcript = (await mine.json()) as { messages: { role: string; content: string }[] };
    expect(transcript.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(transcript.messages[1]!.content).toBe(body.final_answer);
    expect((await fetch(`${fleet.board.url}/v1/sessions/json-1/messages?user_id=someone-else`)).status).toBe(403);
  });
});

describe('sub-agent failures', () => {
  it('turns 500, unparseable bodies, schema violations and cut streams into failed tasks while others complete', async () => {
    const fleet = await startFleet({
      hotel: statusReply(500),
      limo: rawReply('{not json'),
      flight: jsonReply({ output: { wrong: true } }),
      weather: sseReply({ progress: ['查询中…'], cutBeforeResult: true }),
    });
    try {
      const events = await fleet.board.chat('帮我订北京的酒店，明天入住，再查一下明天从北京到上海的机票，还有北京明天的天气', { sessionId: 'fail-1' });
      const failed = stageEvents(events, 'agent_failed').map((event) => [event.agent_id, (event.metadata.state as { code: string }).code]);
      expect(failed).toEqual(expect.arrayContaining([
        ['hotel_agent', 'http_status'],
        ['flight_agent', 'output_schema'],
        ['weather_agent', 'stream_incomplete'],
      ]));
      expect(fleet.hotel.calls).toHaveLength(2); // retried once on 5xx with the same task id
      const [firstCall, secondCall] = fleet.hotel.calls.map((call) => (call.body as { task_id: string }).task_id);
      expect(secondCall).toBe(firstCall);
      const final = finalEvent(events);
      expect(final.content).toContain('酒店服务');
      expect(events.at(-1)!.type).toBe('done');
      expectNoInternalIds(events);
    } finally {
      await fleet.close();
    }
  });

  it('fails a timed-out task, skips its dependent, and lets the independent one complete', async () => {
    const fleet = await startFleet({ hotel: hangReply() }, (yaml) => yaml.replaceAll('timeout_ms: 10000', 'timeout_ms: 300').replaceAll('retries: 1', 'retries: 0'));
    try {
      const events = await fleet.board.chat('帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气', { sessionId: 'timeout-1' });
      const failed = stageEvents(events, 'agent_failed').map((event) => [event.agent_id, (event.metadata.state as { code: string }).code]);
      expect(failed).toEqual(expect.arrayContaining([
        ['hotel_agent', 'timeout'],
        ['limo_agent', 'dependency'],
      ]));
      expect(fleet.limo.calls).toHaveLength(0);
      expect(stageEvents(events, 'agent_done').map((event) => event.agent_id)).toEqual(['weather_agent']);
      expect(finalEvent(events).content).toContain('北京明天晴');
    } finally {
      await fleet.close();
    }
  });

  it('aborts the sub-agent call when the client disconnects mid-turn', async () => {
    const fleet = await startFleet({ hotel: hangReply() });
    try {
      const controller = new AbortController();
      const turn = fleet.board.chat('帮我订北京的酒店，明天入住', {
        sessionId: 'disconnect-1',
        signal: controller.signal,
        onEvent: (event) => {
          if (event.metadata.stage === 'agent_start') controller.abort();
        },
      });
      await expect(turn).rejects.toThrow();
      await fleet.hotel.waitForAborts(1, 5000);
      expect(fleet.hotel.abortedCount).toBe(1);
      expect(fleet.hotel.calls).toHaveLength(1);
      // The session is free again for the next turn.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const next = await fleet.board.chat('你好', { sessionId: 'disconnect-1' });
      expect(next.at(-1)!.type).toBe('done');
    } finally {
      await fleet.close();
    }
  });
});
