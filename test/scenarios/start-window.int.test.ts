/**
 * The start window on real PostgreSQL + Redis (decision 0059): a turn's first
 * frame leaves before its start row is stored. The start row is held back by
 * a lock on the turns table taken from another connection (inserts wait,
 * reads do not), so the window lasts as long as the test wants. Two
 * replicas share the database and the Redis prefix: a client that saw the
 * first frame on A resumes, cancels or repeats its request on B in the
 * window and is answered with the turn, never 404 or 204. A start that
 * cannot be written ends the turn with `final` and `done` "failed", the
 * events it sent stored, the session free for the next turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createParser } from 'eventsource-parser';
import { sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { createDatabaseFactory, deleteRedisPrefix, postgresAvailable, redisAvailable, redisPrefix, TEST_REDIS_URL } from '../support/services.js';
import { sampleRegistry } from '../support/switchboard-harness.js';
import { createSwitchboard, type Switchboard } from '../../src/switchboard.js';
import { startServer, type RunningServer } from '../../src/http/index.js';
import { silentLogger } from '../../src/logger.js';
import type { ResponseState } from '../../src/events/index.js';

const hasServices = (await postgresAvailable()) && (await redisAvailable());

interface Frame {
  id: string | undefined;
  event: ResponseState;
}

/** An SSE response read frame by frame: `next()` waits for the next frame (undefined at the end). */
function frameReader(response: Response) {
  const frames: Frame[] = [];
  const parser = createParser({ onEvent: (message) => frames.push({ id: message.id, event: JSON.parse(message.data) as ResponseState }) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let read = 0;
  let ended = false;
  return {
    async next(): Promise<Frame | undefined> {
      while (read >= frames.length && !ended) {
        const { value, done } = await reader.read();
        if (done) ended = true;
        else parser.feed(decoder.decode(value, { stream: true }));
      }
      return frames[read++];
    },
    async rest(): Promise<Frame[]> {
      const out: Frame[] = [];
      for (let frame = await this.next(); frame; frame = await this.next()) out.push(frame);
      return out;
    },
  };
}

/** Settles with the promise's value, and says meanwhile whether it has. */
function watch<T>(promise: Promise<T>) {
  const state = { settled: false, promise: promise.finally(() => (state.settled = true)) };
  return state;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How the weather agent answers, by session (the sub-task's thread id): a delay in ms. */
const delays = new Map<string, number>();

describe.skipIf(!hasServices)('the start window on Postgres + Redis', () => {
  const databases = createDatabaseFactory('start_window');
  const prefix = redisPrefix('start_window');
  let databaseUrl: string;
  let weather: FakeAgent;
  let dir: string;
  const replicas: { switchboard: Switchboard; server: RunningServer }[] = [];
  let a: string;
  let b: string;

  const startReplica = async (configPath: string) => {
    const switchboard = await createSwitchboard({ configPath, databaseUrl, redisUrl: TEST_REDIS_URL, redisPrefix: prefix, logger: silentLogger, env: {}, watch: false });
    const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
    replicas.push({ switchboard, server });
    return server.url;
  };

  beforeAll(async () => {
    databaseUrl = await databases.create();
    weather = await startFakeAgent((body) =>
      sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [{ date: '2026-01-02', condition: '晴', high: 8, low: -2 }] }, message: '晴。' }, delayMs: delays.get((body as { thread_id: string }).thread_id) ?? 0 }),
    );
    dir = mkdtempSync(join(tmpdir(), 'sb-start-window-'));
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, sampleRegistry('agents_config.yaml', { 7104: weather.url }, { answerCacheTtlS: 0 }));
    a = await startReplica(configPath);
    b = await startReplica(configPath);
  }, 60000);

  afterAll(async () => {
    for (const { switchboard, server } of replicas) {
      await server.close();
      await switchboard.close();
    }
    await weather?.close();
    await databases.dropAll();
    await deleteRedisPrefix(prefix);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60000);

  const sql = async <Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<Row>(text, values)).rows;
    } finally {
      await client.end();
    }
  };

  /** Holds back every turn's start row until `release()`; `failStarts()` makes the starts waiting now fail. */
  const holdStartRows = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE sb_turns IN SHARE MODE');
    return {
      async release() {
        await client.query('COMMIT');
        await client.end();
      },
      /** Cancels the start statements waiting for the lock; how many. */
      async failStarts(): Promise<number> {
        const rows = await sql<{ cancelled: boolean }>(
          `SELECT pg_cancel_backend(pid) AS cancelled FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%sb_begin_turn%'`,
        );
        return rows.filter((row) => row.cancelled).length;
      },
    };
  };

  const rowOf = async (turnId: string) => (await sql<{ status: string }>('SELECT status FROM sb_turns WHERE turn_id = $1', [turnId]))[0];

  const chat = (url: string, sessionId: string, headers: Record<string, string> = {}, query = '北京明天的天气怎么样') =>
    fetch(`${url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query, user_id: 'u1', session_id: sessionId }),
    });

  /** Starts a turn on A while start rows are held: its first frame, and the rest of its stream. */
  const firstFrameInWindow = async (sessionId: string, headers: Record<string, string> = {}, query?: string) => {
    const response = await chat(a, sessionId, headers, query);
    expect(response.status).toBe(200);
    const frames = frameReader(response);
    const first = (await frames.next())!;
    const turnId = first.event.metadata.turn_id!;
    expect(first.id).toBe(`${turnId}:1`);
    // The client has the first frame and the turn's start is not stored: the window is open.
    expect(await rowOf(turnId)).toBeUndefined();
    return { first, turnId, frames };
  };

  it('sends the first frame before the start row is stored; resume on the other replica, with and without Last-Event-ID, waits for it', async () => {
    const held = await holdStartRows();
    let released = false;
    try {
      const { first, turnId, frames } = await firstFrameInWindow('w-resume');
      const resumed = watch(fetch(`${b}/v1/sessions/w-resume/stream?user_id=u1`, { headers: { 'last-event-id': first.id! } }));
      const fromStart = watch(fetch(`${b}/v1/sessions/w-resume/stream?user_id=u1`));
      await pause(400);
      // Neither is answered "not found" (404) or "nothing follows" (204) while the row is missing.
      expect([resumed.settled, fromStart.settled]).toEqual([false, false]);
      await held.release();
      released = true;
      const onA = await frames.rest();
      expect(onA.at(-1)!.event.metadata.state?.outcome).toBe('completed');
      const afterFirst = await resumed.promise;
      expect(afterFirst.status).toBe(200);
      const resumedFrames = await frameReader(afterFirst).rest();
      expect(resumedFrames.map((frame) => frame.id)).toEqual(onA.map((frame) => frame.id));
      const whole = await fromStart.promise;
      expect(whole.status).toBe(200);
      expect((await frameReader(whole).rest()).map((frame) => frame.id)).toEqual([first, ...onA].map((frame) => frame.id));
      expect((await rowOf(turnId))?.status).toBe('completed');
    } finally {
      if (!released) await held.release();
    }
  }, 60000);

  it('cancels a turn from the other replica in the window (202, not 404) and the turn ends cancelled', async () => {
    delays.set('w-cancel', 3000);
    const held = await holdStartRows();
    let released = false;
    try {
      // A city no other turn asked about: the weather agent's reply is not in the response cache.
      const { turnId, frames } = await firstFrameInWindow('w-cancel', {}, '广州明天的天气怎么样');
      const cancel = watch(fetch(`${b}/v1/sessions/w-cancel/cancel?user_id=u1`, { method: 'POST' }));
      await pause(400);
      expect(cancel.settled).toBe(false);
      await held.release();
      released = true;
      const answered = await cancel.promise;
      expect(answered.status).toBe(202);
      expect(((await answered.json()) as { turn_id: string }).turn_id).toBe(turnId);
      const rest = await frames.rest();
      expect(rest.at(-1)!.event.metadata.state).toMatchObject({ outcome: 'cancelled', reason: 'user_cancel' });
    } finally {
      if (!released) await held.release();
    }
  }, 60000);

  it('answers a repeated request (same idempotency-key) on the other replica in the window with the first turn, over SSE and as JSON', async () => {
    const held = await holdStartRows();
    let released = false;
    try {
      const key = { 'idempotency-key': 'window-repeat-1' };
      const { first, frames } = await firstFrameInWindow('w-repeat', key);
      const repeated = watch(chat(b, 'w-repeat', { ...key, 'last-event-id': first.id! }));
      const asJson = watch(chat(b, 'w-repeat', { ...key, accept: 'application/json' }));
      await pause(400);
      expect(repeated.settled).toBe(false);
      await held.release();
      released = true;
      const onA = await frames.rest();
      const response = await repeated.promise;
      expect(response.status).toBe(200);
      expect(response.headers.get('x-idempotent-replay')).toBe('true');
      expect((await frameReader(response).rest()).map((frame) => frame.id)).toEqual(onA.map((frame) => frame.id));
      const json = (await (await asJson.promise).json()) as { events: ResponseState[] };
      expect(json.events.map((event) => event.metadata.seq)).toEqual([first, ...onA].map((frame) => frame.event.metadata.seq));
    } finally {
      if (!released) await held.release();
    }
  }, 60000);

  it('ends a turn whose start cannot be written with final and done "failed", its events stored, and frees the session', async () => {
    const held = await holdStartRows();
    let released = false;
    try {
      const { turnId, frames } = await firstFrameInWindow('w-fail');
      // The start is tried twice: both attempts fail.
      let failed = 0;
      for (let tries = 0; failed < 2 && tries < 200; tries++) {
        failed += await held.failStarts();
        await pause(25);
      }
      expect(failed).toBe(2);
      await held.release();
      released = true;
      const rest = await frames.rest();
      const final = rest.find((frame) => frame.event.metadata.stage === 'final');
      expect(final?.event.is_thinking).toBe(false);
      expect(rest.at(-1)!.event.type).toBe('done');
      expect(rest.at(-1)!.event.metadata.state?.outcome).toBe('failed');
      expect(await rowOf(turnId)).toBeUndefined();
      // Every event the client received is stored, once.
      const stored = await sql<{ seq: number }>('SELECT seq FROM sb_events WHERE turn_id = $1 ORDER BY seq', [turnId]);
      expect(stored.map((row) => row.seq)).toEqual([1, ...rest.map((frame) => frame.event.metadata.seq)]);
      // The session's lease was let go of: the next turn runs.
      const next = await chat(b, 'w-fail');
      expect(next.status).toBe(200);
      expect((await frameReader(next).rest()).at(-1)!.event.metadata.state?.outcome).toBe('completed');
    } finally {
      if (!released) await held.release();
    }
  }, 60000);

  it('still answers 404 for a session nobody has and an event id of no turn, without waiting', async () => {
    const started = Date.now();
    expect((await fetch(`${b}/v1/sessions/w-nobody/stream?user_id=u1`)).status).toBe(404);
    expect((await fetch(`${b}/v1/sessions/w-nobody/cancel?user_id=u1`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${b}/v1/sessions/w-resume/stream?user_id=u1`, { headers: { 'last-event-id': `turn_${'0'.repeat(32)}:1` } })).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(2000);
  }, 30000);
});
