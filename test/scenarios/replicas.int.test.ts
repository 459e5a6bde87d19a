/**
 * Two real `switchboard serve` processes on one PostgreSQL serve the same
 * sessions: a turn on A and the next on B (parked task and slot memory carry
 * over), one turn per session across both (409 for the other), a replica
 * killed with SIGKILL mid-turn (the session's next turn succeeds on the other
 * within 30 s, the cut turn is recorded as interrupted, its dispatched task
 * stays on record), and a SIGTERM drain (readyz 503, a short turn finishes,
 * a long one is cancelled with a done that says why, the process exits 0);
 * cancel and interrupt reach a turn running on the other replica, and an
 * enqueued turn on one replica waits for the turn running on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { spawnServer, type ServerProcess } from '../contract/harness.js';
import { hangReply, jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { createDatabaseFactory, postgresAvailable } from '../support/services.js';
import { chatOverSse, finalEvent, sampleRegistry } from '../support/switchboard-harness.js';
import type { ResponseState } from '../../src/events/index.js';

const hasPostgres = await postgresAvailable();
const LEASE_TTL_MS = 3000;

/** How the fake hotel agent answers, by session (the sub-task's thread id). */
const hotelBehaviour = new Map<string, 'hang' | number>();

describe.skipIf(!hasPostgres)('replicas on one Postgres', () => {
  const databases = createDatabaseFactory('scale_replicas');
  let databaseUrl: string;
  let hotel: FakeAgent;
  let registryYaml: string;
  const servers: ServerProcess[] = [];

  const startReplica = async (env: Record<string, string> = {}) => {
    const server = await spawnServer({
      registryYaml,
      startTimeoutMs: 45000,
      // Each replica is one process (kill -9 and SIGTERM act on it); several workers per process are tested in serve-workers.int.test.ts.
      env: { DATABASE_URL: databaseUrl, SWITCHBOARD_LEASE_TTL_MS: String(LEASE_TTL_MS), SWITCHBOARD_WORKERS: '1', LOG_LEVEL: 'warn', ...env },
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    databaseUrl = await databases.create();
    hotel = await startFakeAgent((body) => {
      const behaviour = hotelBehaviour.get((body as { thread_id: string }).thread_id) ?? 0;
      return behaviour === 'hang' ? hangReply() : jsonReply({ message: '已为您预订北京饭店。', output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街' }], booking_id: 'HB-1' }, delayMs: behaviour });
    });
    registryYaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url });
  }, 60000);

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.stop().catch(() => null)));
    await hotel?.close();
    await databases.dropAll();
  }, 60000);

  const query = async <Row extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<Row>(sql, values)).rows;
    } finally {
      await client.end();
    }
  };
  const transcript = async (url: string, sessionId: string) =>
    ((await (await fetch(`${url}/v1/sessions/${sessionId}/messages?user_id=u1`)).json()) as { messages: { role: string; content: string; metadata?: Record<string, unknown> }[] }).messages;
  const outcomeOf = (events: ResponseState[]) => events.at(-1)!.metadata.state?.outcome;

  let a: ServerProcess;
  let b: ServerProcess;

  it('starts two replicas on an empty database (the second joins the migrated schema)', async () => {
    [a, b] = await Promise.all([startReplica(), startReplica()]);
    const versions = await query<{ version: number }>('SELECT version FROM schema_version');
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3, 4, 5, 6]);
  }, 100000);

  it('runs turn N on A and turn N+1 on B: the parked task and slot memory carry over', async () => {
    const first = await chatOverSse(a.url, '帮我订个酒店', { sessionId: 'carry' });
    expect(finalEvent(first).metadata.semantic_info?.[0]?.keys).toEqual(expect.arrayContaining(['city']));
    expect(hotel.calls).toHaveLength(0);
    const second = await chatOverSse(b.url, '北京，明天入住', { sessionId: 'carry' });
    expect(outcomeOf(second)).toBe('completed');
    expect(hotel.calls).toHaveLength(1);
    expect((hotel.calls[0]!.body as { inputs: Record<string, unknown> }).inputs).toMatchObject({ city: '北京' });
    expect((await transcript(a.url, 'carry')).map((row) => row.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  }, 60000);

  it('runs exactly one of two concurrent turns on one session (409 for the other)', async () => {
    hotelBehaviour.set('race', 1500);
    const calls = hotel.calls.length;
    const running = chatOverSse(a.url, '帮我订北京明天的酒店', { sessionId: 'race' });
    await hotel.waitForCalls(calls + 1, 20000);
    const refused = await fetch(`${b.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '帮我订北京明天的酒店', user_id: 'u1', session_id: 'race' }),
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TURN_IN_PROGRESS');
    expect(outcomeOf(await running)).toBe('completed');
    expect(hotel.calls).toHaveLength(calls + 1);
  }, 60000);

  /** One turn over SSE with extra body fields (read to its end). */
  const turnWith = async (url: string, sessionId: string, fields: Record<string, unknown>): Promise<ResponseState[]> => {
    const response = await fetch(`${url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: '帮我订北京明天的酒店', user_id: 'u1', session_id: sessionId, ...fields }),
    });
    expect(response.status, `${sessionId}: ${response.status}`).toBe(200);
    const text = await response.text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as ResponseState);
  };

  it('cancels and interrupts a turn running on the other replica; enqueue waits for it there', async () => {
    // Cancel from B: A's sub-agent request is aborted and A's stream ends cancelled.
    hotelBehaviour.set('x-cancel', 'hang');
    let calls = hotel.calls.length;
    let aborts = hotel.abortedCount;
    const cancelled = turnWith(a.url, 'x-cancel', {});
    await hotel.waitForCalls(calls + 1, 20000);
    const cancelledAt = Date.now();
    expect((await fetch(`${b.url}/v1/sessions/x-cancel/cancel?user_id=u1`, { method: 'POST' })).status).toBe(202);
    await hotel.waitForAborts(aborts + 1, 5000);
    const cancelMs = Date.now() - cancelledAt;
    expect(outcomeOf(await cancelled)).toBe('cancelled');
    expect(cancelMs).toBeLessThan(5000);

    // Interrupt from B: A's turn is cancelled, then B's turn runs.
    hotelBehaviour.set('x-interrupt', 'hang');
    calls = hotel.calls.length;
    aborts = hotel.abortedCount;
    const interrupted = turnWith(a.url, 'x-interrupt', {});
    await hotel.waitForCalls(calls + 1, 20000);
    const taking = turnWith(b.url, 'x-interrupt', { query: '你好', multitask_strategy: 'interrupt' });
    await hotel.waitForAborts(aborts + 1, 10000);
    expect(outcomeOf(await interrupted)).toBe('cancelled');
    expect(outcomeOf(await taking)).toBe('completed');

    // Enqueue on B: starts once A's turn has ended, and both are in the transcript in that order.
    hotelBehaviour.set('x-enqueue', 1500);
    calls = hotel.calls.length;
    const running = turnWith(a.url, 'x-enqueue', {});
    await hotel.waitForCalls(calls + 1, 20000);
    const waiting = turnWith(b.url, 'x-enqueue', { query: '你好', multitask_strategy: 'enqueue' });
    expect(outcomeOf(await running)).toBe('completed');
    expect(outcomeOf(await waiting)).toBe('completed');
    const rows = await transcript(b.url, 'x-enqueue');
    expect(rows.filter((row) => row.role === 'user').map((row) => row.content)).toEqual(['帮我订北京明天的酒店', '你好']);
  }, 90000);

  it('survives kill -9 mid-turn: the next turn succeeds on the other replica within 30 s, the cut turn is recorded', async () => {
    hotelBehaviour.set('crash', 'hang');
    const calls = hotel.calls.length;
    const cut = chatOverSse(a.url, '帮我订北京明天的酒店', { sessionId: 'crash' }).catch(() => 'cut' as const);
    await hotel.waitForCalls(calls + 1, 20000);
    const taskId = (hotel.calls[calls]!.body as { task_id: string }).task_id;
    a.child.kill('SIGKILL');
    expect(await cut).toBe('cut');
    const killedAt = Date.now();

    hotelBehaviour.set('crash', 0);
    let next: ResponseState[] | undefined;
    while (!next && Date.now() - killedAt < 30000) {
      next = await chatOverSse(b.url, '帮我订北京明天的酒店', { sessionId: 'crash' }).catch(() => undefined);
      if (!next) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const waitedMs = Date.now() - killedAt;
    expect(next, 'the session stayed blocked for 30 s').toBeDefined();
    expect(waitedMs).toBeLessThan(30000);
    expect(outcomeOf(next!)).toBe('completed');

    const rows = await transcript(b.url, 'crash');
    expect(rows.map((row) => [row.role, row.metadata?.outcome])).toEqual([
      ['user', undefined],
      ['assistant', 'interrupted'],
      ['user', undefined],
      ['assistant', 'completed'],
    ]);
    const [task] = await query<{ status: string; agent_id: string }>('SELECT status, agent_id FROM sb_tasks WHERE task_id = $1', [taskId]);
    expect(task).toEqual({ status: 'dispatched', agent_id: 'hotel_agent' });
  }, 60000);

  it('drains on SIGTERM: readyz 503 at once, a short turn finishes, a long one is cancelled with a done saying why', async () => {
    const c = await startReplica({ SWITCHBOARD_DRAIN_GRACE_MS: '2500' });
    hotelBehaviour.set('drain-short', 800);
    hotelBehaviour.set('drain-long', 'hang');
    const calls = hotel.calls.length;
    const short = chatOverSse(c.url, '帮我订北京明天的酒店', { sessionId: 'drain-short' });
    const long = chatOverSse(c.url, '帮我订北京明天的酒店', { sessionId: 'drain-long' });
    await hotel.waitForCalls(calls + 2, 20000);
    c.child.kill('SIGTERM');
    let ready: Response | undefined;
    for (let attempt = 0; attempt < 20 && ready?.status !== 503; attempt++) {
      ready = await fetch(`${c.url}/readyz`);
      if (ready.status !== 503) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(ready?.status).toBe(503);
    expect(ready?.headers.get('retry-after')).toBeTruthy();
    const refused = await fetch(`${c.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '你好', user_id: 'u1', session_id: 'drain-new' }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();

    expect(outcomeOf(await short)).toBe('completed');
    const longEvents = await long;
    expect(longEvents.at(-1)!.metadata.state).toMatchObject({ outcome: 'cancelled', reason: 'server_shutdown' });
    expect(finalEvent(longEvents).content).toMatch(/重启|restarting/);
    expect(await new Promise((resolve) => c.child.once('exit', resolve))).toBe(0);
    const rows = await transcript(b.url, 'drain-long');
    expect(rows.at(-1)!.metadata).toMatchObject({ outcome: 'cancelled', reason: 'server_shutdown' });
  }, 60000);
});
