/**
 * Side-effect tasks (the demo's hotel booking) are never sent in the turn that
 * plans them: they wait for the user's confirmation by task id or by a yes/no
 * word, and only confirmed, still-parked tasks of a still-enabled agent run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { startBookingBoard, type BookingBoard } from '../support/booking-board.js';
import type { FakeAgent } from '../support/fake-agent.js';
import { finalEvent, stageEvents, type TestSwitchboard } from '../support/switchboard-harness.js';

let hotel: FakeAgent;
let fakes: BookingBoard;
let board: TestSwitchboard;
let original: string;

interface Confirmation {
  task_id: string;
  sub_agent_id: string;
  summary: string;
  inputs: Record<string, unknown>;
}

function confirmationOf(event: ResponseState): Confirmation[] {
  return (event.metadata as { confirmation?: Confirmation[] }).confirmation ?? [];
}

beforeAll(async () => {
  fakes = await startBookingBoard({ now: () => new Date('2026-11-23T10:00:00+08:00') });
  ({ hotel, board } = fakes);
  original = readFileSync(board.configPath, 'utf8');
});

afterAll(async () => {
  await fakes.close();
});

beforeEach(() => {
  hotel.calls.length = 0;
});

async function parkBooking(sessionId: string): Promise<{ events: ResponseState[]; request: Confirmation }> {
  const events = await board.chat('帮我订北京的酒店，明天入住', { sessionId });
  const [request] = confirmationOf(stageEvents(events, 'plan_done')[0]!);
  if (!request) throw new Error('no confirmation on plan_done');
  return { events, request };
}

it('parks the booking with a summary of what will be done, then runs it with the same task id once confirmed by id', async () => {
  const { events, request } = await parkBooking('c-1');
  expect(hotel.calls).toHaveLength(0);
  expect(stageEvents(events, 'agent_start')).toHaveLength(0);
  expect(request).toMatchObject({ sub_agent_id: 'hotel_agent', inputs: { city: '北京', check_in_date: '2026-11-24' } });
  expect(request.summary).toContain('酒店服务');
  expect(request.summary).toContain('北京');
  expect(request.summary).toContain('2026-11-24');
  const final = finalEvent(events);
  expect(confirmationOf(final)).toEqual([request]);
  expect(final.content).toContain('确认');
  for (const event of events) expect(event.content).not.toContain('hotel_agent');

  // The body confirms by task id; the query may be left out.
  const confirmed = await board.chat('', { sessionId: 'c-1', confirm: [request.task_id] });
  expect(hotel.calls).toHaveLength(1);
  const body = hotel.calls[0]!.body as { task_id: string; inputs: Record<string, unknown> };
  expect(body.task_id).toBe(request.task_id);
  expect(body.inputs).toMatchObject({ city: '北京', check_in_date: '2026-11-24' });
  expect(finalEvent(confirmed).content).toContain('BK-1');
  expect(stageEvents(confirmed, 'plan_done')).toHaveLength(1);

  // A replayed (stale) confirmation is answered and runs nothing.
  const replay = await board.chat('', { sessionId: 'c-1', confirm: [request.task_id] });
  expect(hotel.calls).toHaveLength(1);
  expect(stageEvents(replay, 'agent_start')).toHaveLength(0);
  expect(finalEvent(replay).content).toMatch(/没有找到/);
});

it('runs on a yes word and drops on a no word', async () => {
  await parkBooking('c-yes');
  const yes = await board.chat('确认', { sessionId: 'c-yes' });
  expect(hotel.calls).toHaveLength(1);
  expect(stageEvents(yes, 'agent_done')).toHaveLength(1);

  await parkBooking('c-no');
  const no = await board.chat('不', { sessionId: 'c-no' });
  expect(finalEvent(no).content).toMatch(/已取消/);
  const later = await board.chat('确认', { sessionId: 'c-no' });
  expect(stageEvents(later, 'agent_start')).toHaveLength(0);
  expect(hotel.calls).toHaveLength(1);
});

it('rejects by task id; a rejected id confirmed later runs nothing', async () => {
  const { request } = await parkBooking('c-reject');
  const rejected = await board.chat('', { sessionId: 'c-reject', reject: [request.task_id] });
  expect(finalEvent(rejected).content).toMatch(/已取消/);
  const late = await board.chat('', { sessionId: 'c-reject', confirm: [request.task_id] });
  expect(finalEvent(late).content).toMatch(/没有找到/);
  expect(hotel.calls).toHaveLength(0);
});

it('never executes a forged task id, and the real confirmation still waits', async () => {
  const { request } = await parkBooking('c-forged');
  const forged = await board.chat('', { sessionId: 'c-forged', confirm: [`${request.task_id}x`, 'plan_20261123_deadbeef_task_1'] });
  expect(hotel.calls).toHaveLength(0);
  expect(finalEvent(forged).content).toMatch(/没有找到/);
  // Another user cannot confirm it on their own session either.
  await board.chat('', { sessionId: 'c-forged', userId: 'u2', confirm: [request.task_id] });
  expect(hotel.calls).toHaveLength(0);
  await board.chat('', { sessionId: 'c-forged', confirm: [request.task_id] });
  expect(hotel.calls).toHaveLength(1);
});

it('runs the read-only part at once and holds the booking; keys are asked for before confirmation', async () => {
  const mixed = await board.chat('帮我订北京的酒店明天入住，再查一下北京明天的天气', { sessionId: 'c-mixed' });
  expect(stageEvents(mixed, 'agent_start').map((event) => event.agent_id)).toEqual(['weather_agent']);
  expect(confirmationOf(finalEvent(mixed)).map((item) => item.sub_agent_id)).toEqual(['hotel_agent']);
  expect(finalEvent(mixed).content).toContain('晴');

  // A user of their own: the others' bookings taught their profile a usual city, which would fill this one.
  const missing = await board.chat('帮我订个酒店', { sessionId: 'c-keys', userId: 'u-keys' });
  expect(confirmationOf(stageEvents(missing, 'plan_done')[0]!)).toEqual([]);
  expect(stageEvents(missing, 'plan_done')[0]!.metadata.semantic_info?.[0]?.keys).toEqual(['city', 'check_in_date']);
  const given = await board.chat('北京，明天', { sessionId: 'c-keys', userId: 'u-keys' });
  expect(confirmationOf(finalEvent(given))).toHaveLength(1);
  expect(hotel.calls).toHaveLength(0);
  await board.chat('好的', { sessionId: 'c-keys', userId: 'u-keys' });
  expect(hotel.calls).toHaveLength(1);
});

it('cancels the confirmation politely when a registry edit disabled the agent between the turns', async () => {
  const { request } = await parkBooking('c-reload');
  const before = ((await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string }).version;
  writeFileSync(board.configPath, original.replace(/(- id: hotel_agent[\s\S]*?enabled: )true/, '$1false'));
  try {
    for (let attempt = 0; attempt < 100; attempt++) {
      const view = (await (await fetch(`${board.url}/v1/agents`)).json()) as { version: string };
      if (view.version !== before) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await board.chat('', { sessionId: 'c-reload', confirm: [request.task_id] });
    expect(hotel.calls).toHaveLength(0);
    expect(finalEvent(answer).content).toMatch(/已停用或下线/);
    expect(finalEvent(answer).content).not.toContain('hotel_agent');
  } finally {
    writeFileSync(board.configPath, original);
  }
});

it('runs a read-only task that waited for the booking right after it, once the booking is confirmed', async () => {
  // A variant registry: the weather agent consumes the hotel's output.
  const variant = await startBookingBoard({
    now: () => new Date('2026-11-23T10:00:00+08:00'),
    edit: (yaml) => yaml.replace(/(- id: weather_agent[\s\S]*?depends_on: )\[\]/, '$1[hotel_agent]'),
  });
  try {
    const planned = await variant.board.chat('帮我订北京的酒店明天入住，再查一下北京明天的天气', { sessionId: 'c-follow' });
    expect(stageEvents(planned, 'agent_start')).toHaveLength(0);
    expect(confirmationOf(finalEvent(planned)).map((item) => item.sub_agent_id)).toEqual(['hotel_agent']);
    const confirmed = await variant.board.chat('确认', { sessionId: 'c-follow' });
    expect(stageEvents(confirmed, 'agent_start').map((event) => event.agent_id)).toEqual(['hotel_agent', 'weather_agent']);
    const upstream = (variant.weather.calls[0]!.body as { upstream: Record<string, { agent: string }> }).upstream;
    expect(Object.values(upstream).map((entry) => entry.agent)).toEqual(['hotel_agent']);
  } finally {
    await variant.close();
  }
});
