/**
 * Parked tasks do not wait forever or get filled silently later: they expire
 * after `pending_ttl_s` (fake clock), a request on another topic drops them
 * and says so, and a message that is only a cancel word drops them.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startBookingBoard, type BookingBoard } from '../support/booking-board.js';
import type { FakeAgent } from '../support/fake-agent.js';
import { finalEvent, stageEvents, type TestSwitchboard } from '../support/switchboard-harness.js';

let hotel: FakeAgent;
let fakes: BookingBoard;
let board: TestSwitchboard;
let clock = new Date('2026-11-23T10:00:00+08:00');

beforeAll(async () => {
  fakes = await startBookingBoard({ now: () => clock, supervisorExtra: '  pending_ttl_s: 120' });
  ({ hotel, board } = fakes);
});

afterAll(async () => {
  await fakes.close();
});

beforeEach(() => {
  clock = new Date('2026-11-23T10:00:00+08:00');
  hotel.calls.length = 0;
});

const advance = (seconds: number) => {
  clock = new Date(clock.getTime() + seconds * 1000);
};

it('expires a confirmation after pending_ttl_s: a late yes is answered, never executed', async () => {
  await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'x-1' });
  advance(121);
  const late = await board.chat('确认', { sessionId: 'x-1' });
  expect(hotel.calls).toHaveLength(0);
  expect(stageEvents(late, 'agent_start')).toHaveLength(0);
  expect(finalEvent(late).content).toMatch(/超过2分钟未处理，已自动取消/);
  expect(finalEvent(late).content).toMatch(/重新告诉我/);
});

it('keeps a confirmation that is still within pending_ttl_s', async () => {
  await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'x-2' });
  advance(119);
  await board.chat('确认', { sessionId: 'x-2' });
  expect(hotel.calls).toHaveLength(1);
});

it('expires by task id too', async () => {
  const events = await board.chat('帮我订北京的酒店，明天入住', { sessionId: 'x-3' });
  const taskId = (finalEvent(events).metadata as { confirmation: { task_id: string }[] }).confirmation[0]!.task_id;
  advance(600);
  const late = await board.chat('', { sessionId: 'x-3', confirm: [taskId] });
  expect(hotel.calls).toHaveLength(0);
  expect(finalEvent(late).content).toMatch(/已自动取消/);
});

it('drops parked tasks when the user moves to another topic, and says so once', async () => {
  const parked = await board.chat('帮我订个酒店', { sessionId: 'x-4' });
  expect(stageEvents(parked, 'plan_done')[0]!.metadata.semantic_info).toHaveLength(1);
  const switched = await board.chat('北京明天天气怎么样', { sessionId: 'x-4' });
  expect(stageEvents(switched, 'agent_start').map((event) => event.agent_id)).toEqual(['weather_agent']);
  const content = finalEvent(switched).content;
  expect(content.startsWith('您之前未完成的「酒店服务」已取消')).toBe(true);
  expect(content).toContain('晴');
  // The dropped hotel request is not filled later by a value that fits it.
  const next = await board.chat('上海', { sessionId: 'x-4' });
  expect(stageEvents(next, 'plan_done').flatMap((event) => (event.metadata.state as { task_plan: { sub_tasks: { assigned_agent: string }[] } }).task_plan.sub_tasks.map((task) => task.assigned_agent))).not.toContain('hotel_agent');
  expect(finalEvent(next).content).not.toContain('已取消');
});

it('drops every parked task on a message that is only a cancel word, and says when there was nothing', async () => {
  await board.chat('帮我订北京的酒店明天入住，再安排首都机场接机', { sessionId: 'x-5' });
  const cancelled = await board.chat('算了', { sessionId: 'x-5' });
  expect(finalEvent(cancelled).content).toMatch(/已为您取消未完成的/);
  expect(stageEvents(cancelled, 'intent_start')).toHaveLength(0);
  const yes = await board.chat('确认', { sessionId: 'x-5' });
  expect(stageEvents(yes, 'agent_start')).toHaveLength(0);
  expect(hotel.calls).toHaveLength(0);

  const nothing = await board.chat('cancel', { sessionId: 'x-6' });
  expect(finalEvent(nothing).content).toMatch(/nothing waiting/);
});
