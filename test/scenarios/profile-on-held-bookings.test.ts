/**
 * A remembered value (`remember: true`) fills a key of a side-effect agent: the
 * demo's hotel booking gets the user's usual city, the task is held anyway,
 * its confirmation shows the city and says it came from the profile, and a
 * correction changes it like any held value. A key without `remember` (the
 * check-in date) is never filled from another session.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ResponseState } from '../../src/events/index.js';
import { startBookingBoard, type BookingBoard } from '../support/booking-board.js';
import { finalEvent, stageEvents } from '../support/switchboard-harness.js';

let fakes: BookingBoard;

interface Held {
  task_id: string;
  sub_agent_id: string;
  summary: string;
  inputs: Record<string, unknown>;
}

const heldOf = (events: readonly ResponseState[]): Held[] => (finalEvent(events).metadata as { confirmation?: Held[] }).confirmation ?? [];
const askedOf = (events: readonly ResponseState[]) => (finalEvent(events).metadata.semantic_info ?? []).map((info) => [info.sub_agent_id, info.keys]);
const hotelInputs = () => fakes.hotel.calls.map((call) => (call.body as { inputs: Record<string, unknown> }).inputs);

beforeAll(async () => {
  fakes = await startBookingBoard({ now: () => new Date('2026-11-23T10:00:00+08:00') });
});

afterAll(async () => {
  await fakes.close();
});

beforeEach(() => {
  fakes.hotel.calls.length = 0;
});

/** The user asks about Shanghai's weather in one session, so the profile learns the city. */
async function learnShanghai(userId: string): Promise<void> {
  await fakes.board.chat('上海明天天气怎么样', { sessionId: `${userId}-learn`, userId });
}

it('offers the remembered city on a held booking, says it came from the profile, and books it on yes', async () => {
  await learnShanghai('ph-1');
  const events = await fakes.board.chat('帮我订个酒店，明天入住', { sessionId: 'ph-1-book', userId: 'ph-1' });
  expect(fakes.hotel.calls).toHaveLength(0);
  expect(stageEvents(events, 'agent_start')).toHaveLength(0);
  expect(askedOf(events)).toEqual([]);
  const [held] = heldOf(events);
  expect(held).toMatchObject({ sub_agent_id: 'hotel_agent', inputs: { city: '上海', check_in_date: '2026-11-24' } });
  expect(held!.summary).toContain('使用您常用的入住城市 上海');
  expect(finalEvent(events).content).toContain('使用您常用的入住城市 上海');
  // Nothing was done yet: the answer does not say the profile value was "used" for a result.
  expect(finalEvent(events).content).not.toContain('已按您常用的');

  await fakes.board.chat('确认', { sessionId: 'ph-1-book', userId: 'ph-1' });
  expect(hotelInputs()).toEqual([expect.objectContaining({ city: '上海', check_in_date: '2026-11-24' })]);
});

it('a correction replaces the remembered city like any held value', async () => {
  await learnShanghai('ph-2');
  await fakes.board.chat('帮我订个酒店，明天入住', { sessionId: 'ph-2-book', userId: 'ph-2' });
  const corrected = await fakes.board.chat('不对，改成北京', { sessionId: 'ph-2-book', userId: 'ph-2' });
  const [held] = heldOf(corrected);
  expect(held?.inputs).toMatchObject({ city: '北京', check_in_date: '2026-11-24' });
  expect(held!.summary).not.toContain('常用');
  await fakes.board.chat('确认', { sessionId: 'ph-2-book', userId: 'ph-2' });
  expect(hotelInputs()).toEqual([expect.objectContaining({ city: '北京' })]);
});

it('says so in English too', async () => {
  await learnShanghai('ph-3');
  const events = await fakes.board.chat('book me a hotel, check in tomorrow', { sessionId: 'ph-3-book', userId: 'ph-3' });
  const [held] = heldOf(events);
  expect(held?.inputs).toMatchObject({ city: '上海' });
  expect(held!.summary).toContain('using your usual check-in city 上海');
  expect(fakes.hotel.calls).toHaveLength(0);
});

it('never fills a key without `remember` from another session', async () => {
  await fakes.board.chat('帮我订上海的酒店，明天入住', { sessionId: 'ph-4-a', userId: 'ph-4' });
  await fakes.board.chat('确认', { sessionId: 'ph-4-a', userId: 'ph-4' });
  expect(hotelInputs()).toEqual([expect.objectContaining({ city: '上海', check_in_date: '2026-11-24' })]);
  const later = await fakes.board.chat('帮我订个酒店', { sessionId: 'ph-4-b', userId: 'ph-4' });
  expect(askedOf(later)).toEqual([['hotel_agent', ['check_in_date']]]);
  expect(heldOf(later)).toEqual([]);
});
