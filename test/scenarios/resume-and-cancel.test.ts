/**
 * Event ids, resume and cancel over real HTTP (SQLite, one process): a client
 * cut mid-turn with on_disconnect "continue" resumes with Last-Event-ID and
 * gets every event exactly once in order; POST /cancel aborts the running
 * turn's sub-agent call within a second and the stream ends cancelled; a
 * resume with nothing left to send answers 204 (an EventSource stops), and a
 * repeated idempotency-key with Last-Event-ID sends only what followed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParser } from 'eventsource-parser';
import { EventSource } from 'eventsource';
import { hangReply, jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';
import type { ResponseState } from '../../src/events/index.js';

interface Frame {
  id: string | undefined;
  event: ResponseState;
}

/** Reads SSE frames (id + data) until the stream ends or `stopAfter` frames arrived (then the client goes away). */
async function readFrames(response: Response, stopAfter = Infinity, controller?: AbortController): Promise<Frame[]> {
  const frames: Frame[] = [];
  const parser = createParser({ onEvent: (message) => frames.push({ id: message.id, event: JSON.parse(message.data) as ResponseState }) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  try {
    while (frames.length < stopAfter) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } catch {
    // The client aborted.
  }
  if (frames.length >= stopAfter) controller?.abort();
  return frames.slice(0, Math.min(frames.length, stopAfter));
}

const behaviour = new Map<string, 'hang' | number>();

describe('resume and cancel', () => {
  let hotel: FakeAgent;
  let board: TestSwitchboard;

  beforeAll(async () => {
    hotel = await startFakeAgent((body) => {
      const how = behaviour.get((body as { thread_id: string }).thread_id) ?? 0;
      return how === 'hang' ? hangReply() : jsonReply({ message: '已为您预订北京饭店。', output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街' }], booking_id: 'HB-1' }, delayMs: how });
    });
    board = await startTestSwitchboard({ registryYaml: sampleRegistry('agents_config.yaml', { 7101: hotel.url }) });
  });
  afterAll(async () => {
    await board?.close();
    await hotel?.close();
  });

  const post = (sessionId: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
    fetch(`${board.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: '帮我订北京明天的酒店', user_id: 'u1', session_id: sessionId, ...extra }),
      signal,
    });
  const resume = (sessionId: string, lastEventId?: string) =>
    fetch(`${board.url}/v1/sessions/${sessionId}/stream?user_id=u1`, { headers: lastEventId ? { 'last-event-id': lastEventId } : {} });

  it('labels every frame id: <turn_id>:<seq>, with the turn id in each event', async () => {
    const frames = await readFrames(await post('ids'));
    const turnId = frames[0]!.event.metadata.turn_id;
    expect(turnId).toMatch(/^turn_[0-9a-f]{32}$/);
    frames.forEach((frame, index) => {
      expect(frame.event.metadata.turn_id).toBe(turnId);
      expect(frame.event.metadata.seq).toBe(index + 1);
      expect(frame.id).toBe(`${turnId}:${index + 1}`);
    });
  });

  it('a client cut mid-turn with on_disconnect "continue" resumes with Last-Event-ID: every event once, in order', async () => {
    behaviour.set('resume', 600);
    const controller = new AbortController();
    const first = await readFrames(await post('resume', { on_disconnect: 'continue' }, controller.signal), 2, controller);
    expect(first).toHaveLength(2);
    const rest = await readFrames(await resume('resume', first[1]!.id));
    const all = [...first, ...rest];
    expect(all.map((frame) => frame.event.metadata.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all.at(-1)!.event.type).toBe('done');
    expect(all.at(-1)!.event.metadata.state?.outcome).toBe('completed');
    expect(hotel.calls.filter((call) => (call.body as { thread_id: string }).thread_id === 'resume').every((call) => !call.aborted)).toBe(true);

    // Without the header: the latest turn again from its start.
    const replay = await readFrames(await resume('resume'));
    expect(replay.map((frame) => frame.id)).toEqual(all.map((frame) => frame.id));
  });

  it('answers 204 once nothing can follow Last-Event-ID, so a browser EventSource stops reconnecting', async () => {
    const frames = await readFrames(await post('after-done'));
    const done = frames.at(-1)!;
    expect(done.event.type).toBe('done');
    const atDone = await resume('after-done', done.id);
    expect(atDone.status).toBe(204);
    expect(await atDone.text()).toBe('');
    const [turnId, seq] = done.id!.split(':') as [string, string];
    expect((await resume('after-done', `${turnId}:${Number(seq) + 5}`)).status).toBe(204);
    // One event before done still gets the done event.
    const before = await readFrames(await resume('after-done', frames.at(-2)!.id));
    expect(before.map((frame) => frame.id)).toEqual([done.id]);
  });

  it('an off-the-shelf EventSource (eventsource 4) reads the turn once and stops: no reconnect loop after done', async () => {
    await readFrames(await post('event-source'));
    const requests: number[] = [];
    const seen: string[] = [];
    const source = new EventSource(`${board.url}/v1/sessions/event-source/stream?user_id=u1`, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        requests.push(response.status);
        return response;
      },
    });
    const closed = new Promise<void>((resolve) => {
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) resolve();
      };
    });
    source.onmessage = (message) => seen.push(message.lastEventId);
    await closed;
    source.close();
    expect(requests).toEqual([200, 204]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(3);
  });

  it('answers 404 for an unknown event id and 400 for a malformed one', async () => {
    expect((await resume('resume', `turn_${'0'.repeat(32)}:3`)).status).toBe(404);
    expect((await resume('resume', 'not-an-id')).status).toBe(400);
    // An id of the `<turn_id>:<seq>` form that names no turn is unknown, whatever the turn id looks like.
    expect((await resume('resume', 'turn_unknown:3')).status).toBe(404);
    expect((await resume('resume', 'abc:1')).status).toBe(404);
    expect((await resume('no-such-session')).status).toBe(404);
  });

  it('cancels a running turn: the sub-agent request is aborted within 1 s, the stream ends cancelled, the transcript says so', async () => {
    behaviour.set('cancel', 'hang');
    const calls = hotel.calls.length;
    const streaming = post('cancel').then((response) => readFrames(response));
    await hotel.waitForCalls(calls + 1, 10000);
    const aborts = hotel.abortedCount;
    const cancelledAt = Date.now();
    const answer = await fetch(`${board.url}/v1/sessions/cancel/cancel?user_id=u1`, { method: 'POST' });
    expect(answer.status).toBe(202);
    await hotel.waitForAborts(aborts + 1, 1000);
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    const frames = await streaming;
    const final = frames.find((frame) => frame.event.metadata.stage === 'final');
    expect(final?.event.content).toMatch(/取消|cancelled/);
    expect(frames.at(-1)!.event.metadata.state).toMatchObject({ outcome: 'cancelled', reason: 'user_cancel' });
    const transcript = (await (await fetch(`${board.url}/v1/sessions/cancel/messages?user_id=u1`)).json()) as { messages: { metadata?: Record<string, unknown> }[] };
    expect(transcript.messages.at(-1)!.metadata).toMatchObject({ outcome: 'cancelled' });
    expect((await fetch(`${board.url}/v1/sessions/cancel/cancel?user_id=u1`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${board.url}/v1/sessions/cancel/cancel?user_id=someone-else`, { method: 'POST' })).status).toBe(403);
  });

  it('a repeated idempotency-key never starts a second turn: it streams the first turn again', async () => {
    behaviour.set('idem', 400);
    const calls = hotel.calls.length;
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'idempotency-key': 'book-hotel-42' };
    const body = JSON.stringify({ query: '帮我订北京明天的酒店', user_id: 'u1', session_id: 'idem' });
    const [first, second] = await Promise.all([
      fetch(`${board.url}/v1/chat`, { method: 'POST', headers, body }).then((response) => readFrames(response)),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => fetch(`${board.url}/v1/chat`, { method: 'POST', headers, body })).then((response) => readFrames(response)),
    ]);
    expect(hotel.calls.length - calls).toBe(1);
    expect(second.map((frame) => frame.id)).toEqual(first.map((frame) => frame.id));
    expect(second.at(-1)!.event.metadata.state?.outcome).toBe('completed');
    const later = await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { ...headers, accept: 'application/json' }, body });
    const replay = (await later.json()) as { events: ResponseState[]; final_answer: string };
    expect(replay.events.map((event) => event.metadata.seq)).toEqual(first.map((frame) => frame.event.metadata.seq));
    expect(replay.final_answer).toBe(first.find((frame) => frame.event.metadata.stage === 'final')!.event.content);
    expect(hotel.calls.length - calls).toBe(1);
    const transcript = (await (await fetch(`${board.url}/v1/sessions/idem/messages?user_id=u1`)).json()) as { messages: unknown[] };
    expect(transcript.messages).toHaveLength(2);
    // Another user with the same key is another turn.
    const other = await fetch(`${board.url}/v1/chat`, { method: 'POST', headers, body: JSON.stringify({ query: '你好', user_id: 'u2', session_id: 'idem2' }) });
    expect((await readFrames(other)).at(-1)!.event.metadata.state?.outcome).toBe('completed');
    expect((await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'bad key with spaces' }, body })).status).toBe(400);
  });

  it('a repeated idempotency-key with Last-Event-ID replays only the events after that id, live included', async () => {
    behaviour.set('idem-resume', 600);
    const calls = hotel.calls.length;
    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'idempotency-key': 'book-hotel-43' };
    const body = JSON.stringify({ query: '帮我订北京明天的酒店', user_id: 'u1', session_id: 'idem-resume', on_disconnect: 'continue' });
    const controller = new AbortController();
    const first = await readFrames(await fetch(`${board.url}/v1/chat`, { method: 'POST', headers, body, signal: controller.signal }), 2, controller);
    expect(first).toHaveLength(2);
    // The turn is still running (the hotel takes 600 ms): the repeat goes on live after the id.
    const rest = await readFrames(await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { ...headers, 'last-event-id': first[1]!.id! }, body }));
    const all = [...first, ...rest];
    expect(all.map((frame) => frame.event.metadata.seq)).toEqual(all.map((_, index) => index + 1));
    expect(all.at(-1)!.event.metadata.state?.outcome).toBe('completed');
    expect(all.filter((frame) => frame.event.metadata.stage === 'final')).toHaveLength(1);
    expect(hotel.calls.length - calls).toBe(1);
    // At the done event: nothing more (204); as JSON: only the events after the id, the answer whole.
    expect((await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { ...headers, 'last-event-id': all.at(-1)!.id! }, body })).status).toBe(204);
    const finalIndex = all.findIndex((frame) => frame.event.metadata.stage === 'final');
    const asJson = (await (
      await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { ...headers, accept: 'application/json', 'last-event-id': all[finalIndex]!.id! }, body })
    ).json()) as { events: ResponseState[]; final_answer: string };
    expect(asJson.events.map((event) => event.metadata.seq)).toEqual(all.slice(finalIndex + 1).map((frame) => frame.event.metadata.seq));
    expect(asJson.final_answer).toBe(all[finalIndex]!.event.content);
    expect((await fetch(`${board.url}/v1/chat`, { method: 'POST', headers: { ...headers, 'last-event-id': 'garbage' }, body })).status).toBe(400);
    expect(hotel.calls.length - calls).toBe(1);
  });

  it('multitask_strategy enqueue runs waiting turns in order after the running one; interrupt cancels it and runs', async () => {
    behaviour.set('queue', 400);
    const send = (query: string, strategy?: string, sessionId = 'queue') =>
      fetch(`${board.url}/v1/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query, user_id: 'u1', session_id: sessionId, ...(strategy ? { multitask_strategy: strategy } : {}) }),
      });
    const first = send('帮我订北京明天的酒店');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = send('你好', 'enqueue');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = send('谢谢', 'enqueue');
    expect((await send('你好', 'reject')).status).toBe(409);
    const outcomes = await Promise.all([first, second, third].map(async (response) => (await readFrames(await response)).at(-1)!.event.metadata.state?.outcome));
    expect(outcomes).toEqual(['completed', 'completed', 'completed']);
    const rows = ((await (await fetch(`${board.url}/v1/sessions/queue/messages?user_id=u1`)).json()) as { messages: { role: string; content: string }[] }).messages;
    expect(rows.filter((row) => row.role === 'user').map((row) => row.content)).toEqual(['帮我订北京明天的酒店', '你好', '谢谢']);

    behaviour.set('interrupt', 'hang');
    const hanging = send('帮我订北京明天的酒店', undefined, 'interrupt').then((response) => readFrames(response));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const taking = await readFrames(await send('你好', 'interrupt', 'interrupt'));
    expect((await hanging).at(-1)!.event.metadata.state?.outcome).toBe('cancelled');
    expect(taking.at(-1)!.event.metadata.state?.outcome).toBe('completed');
    expect((await send('你好', 'sometimes')).status).toBe(400);
  });
});
