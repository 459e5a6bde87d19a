/**
 * The demo travel agents, called through the real agent client with cards
 * whose output schemas are read from the root `agents_config.yaml`, so the
 * demo cannot drift from the registry it ships with.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgents, type DemoAgentName, type DemoAgents } from '../../demo/agents.js';
import { fakeAgentCard } from '../../test/support/fake-agent.js';
import { createAgentClient } from './agent-client.js';
import type { AgentCard, AgentProtocol } from '../registry/types.js';
import type { AgentRequestBody } from './types.js';

interface ConfigAgent {
  id: string;
  endpoint: { protocol: AgentProtocol };
  output_schema?: Record<string, unknown>;
  input_schema?: Record<string, unknown>;
}
const config = parse(readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8')) as { agents: ConfigAgent[] };

const client = createAgentClient();
let demo: DemoAgents;

beforeAll(async () => {
  demo = await startDemoAgents({ ports: { hotel: 0, limo: 0, flight: 0, weather: 0 } });
});
afterAll(async () => {
  await demo?.close();
});

function cardFor(name: DemoAgentName): AgentCard {
  const id = demo.agentIds[name];
  const entry = config.agents.find((agent) => agent.id === id);
  if (!entry?.output_schema) throw new Error(`agents_config.yaml has no output_schema for ${id}`);
  return fakeAgentCard({
    id,
    url: demo.urls[name],
    protocol: entry.endpoint.protocol,
    outputSchema: entry.output_schema,
    inputSchema: entry.input_schema,
  });
}

function request(taskId: string, inputs: Record<string, unknown>, upstream: AgentRequestBody['upstream'] = {}): AgentRequestBody {
  return { task_id: taskId, message: '演示任务', inputs, user_id: 'u1', thread_id: 's1', trace_id: 'trace-1', upstream };
}

describe('demo travel agents', () => {
  it('hotel returns three schema-valid hotels and a booking id derived from the task id', async () => {
    const card = cardFor('hotel');
    const inputs = { city: '北京', check_in_date: '2026-12-01', nights: 2 };
    expect(card.validateInput?.(inputs)).toBe(true);
    const first = await client.call(card, request('task_a', inputs));
    const again = await client.call(card, request('task_a', inputs));
    const other = await client.call(card, request('task_b', inputs));
    if (!first.ok || !again.ok || !other.ok) throw new Error('hotel call failed');
    expect(first.reply.status).toBe('completed');
    expect(first.reply.output?.hotels).toHaveLength(3);
    expect(again.reply.output).toEqual(first.reply.output);
    expect(other.reply.output?.booking_id).not.toBe(first.reply.output?.booking_id);
    expect(other.reply.output?.hotels).toEqual(first.reply.output?.hotels);
  });

  it('limo drives to the hotel booked upstream', async () => {
    const hotel = await client.call(cardFor('hotel'), request('task_0', { city: 'Shanghai', check_in_date: '2026-12-01' }));
    if (!hotel.ok) throw new Error(hotel.reason);
    const upstream = { task_0: { agent: 'hotel_agent', output: hotel.reply.output } };
    const limo = await client.call(cardFor('limo'), request('task_1', { airport: '浦东机场', pickup_time: '早上7点' }, upstream));
    if (!limo.ok) throw new Error(limo.reason);
    const bookedName = (hotel.reply.output?.hotels as { name: string }[])[0]!.name;
    expect(limo.reply.output?.destination).toContain(bookedName);
    expect(limo.reply.output?.driver).toContain('沪A');
    expect(limo.reply.output?.pickup_time).toBe('早上7点');
  });

  it('flight returns flights for the route and date', async () => {
    const outcome = await client.call(cardFor('flight'), request('task_f', { origin: '北京', destination: '上海', date: '2026-12-01' }));
    if (!outcome.ok) throw new Error(outcome.reason);
    const flights = outcome.reply.output?.flights as { departure: string }[];
    expect(flights).toHaveLength(3);
    expect(flights.every((flight) => flight.departure.startsWith('2026-12-01'))).toBe(true);
  });

  it('flight reports a route to the same city as a failure', async () => {
    const outcome = await client.call(cardFor('flight'), request('task_f', { origin: '北京', destination: 'Beijing', date: '2026-12-01' }));
    expect(outcome).toMatchObject({ ok: false, code: 'agent_failed' });
  });

  it('weather streams progress then a three-day forecast', async () => {
    const progress: string[] = [];
    const outcome = await client.call(cardFor('weather'), request('task_w', { city: '北京', date: '2026-12-01' }), {
      onProgress: (content) => progress.push(content),
    });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(progress).toEqual(['正在查询北京的天气…', '正在整理北京未来三天的预报…']);
    const forecast = outcome.reply.output?.forecast as { date: string }[];
    expect(forecast.map((day) => day.date)).toEqual(['2026-12-01', '2026-12-02', '2026-12-03']);
  });

  it('understands 明天 as a date and ignores an unrecognised optional date', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const flight = await client.call(cardFor('flight'), request('task_r', { origin: '广州', destination: '成都', date: '明天' }));
    if (!flight.ok) throw new Error(flight.reason);
    expect((flight.reply.output?.flights as { departure: string }[])[0]!.departure.slice(0, 10)).toBe(tomorrow);
    const weather = await client.call(cardFor('weather'), request('task_r', { city: '杭州', date: 'someday' }));
    expect(weather).toMatchObject({ ok: true, reply: { status: 'completed' } });
  });

  it.each([
    ['hotel', { city: '北京' }, ['check_in_date']],
    ['hotel', { city: '北京', check_in_date: '12月1日' }, ['check_in_date']],
    ['limo', {}, ['airport', 'pickup_time']],
    ['flight', { origin: '北京' }, ['destination', 'date']],
    ['weather', {}, ['city']],
  ] as const)('%s asks for missing inputs %#', async (name, inputs, missing) => {
    const outcome = await client.call(cardFor(name), request('task_m', inputs));
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.reply).toMatchObject({ status: 'input_required', missing_keys: missing });
    expect(outcome.reply.message).toMatch(/还需要您提供/);
  });

  it('rejects a body without task_id with 400', async () => {
    const response = await fetch(demo.urls.hotel, { method: 'POST', body: JSON.stringify({ inputs: {} }) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/task_id/);
  });
});

describe('startDemoAgents', () => {
  it('requires the hotel bearer token when one is set', async () => {
    const guarded = await startDemoAgents({ ports: { hotel: 0, limo: 0, flight: 0, weather: 0 }, hotelToken: 'demo-token' });
    try {
      const card = cardFor('hotel');
      const inputs = { city: '北京', check_in_date: '2026-12-01' };
      const denied = await client.call({ ...card, endpoint: { ...card.endpoint, url: guarded.urls.hotel } }, request('t', inputs));
      expect(denied).toMatchObject({ ok: false, code: 'http_status' });
      const allowed = await client.call(
        { ...card, endpoint: { ...card.endpoint, url: guarded.urls.hotel, headers: { Authorization: 'Bearer demo-token' } } },
        request('t', inputs),
      );
      expect(allowed.ok).toBe(true);
    } finally {
      await guarded.close();
    }
  });

  it('names the agent and port it could not listen on, and closes the others', async () => {
    const busyPort = Number(new URL(demo.urls.flight).port);
    await expect(startDemoAgents({ ports: { hotel: 0, limo: 0, flight: busyPort, weather: 0 } })).rejects.toThrow(
      `demo flight agent cannot listen on 127.0.0.1:${busyPort}: EADDRINUSE`,
    );
  });
});
