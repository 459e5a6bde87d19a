/**
 * A2A tasks served from any replica (CONTRACT §3 "A2A, v4 readings"):
 * `switchboard serve --workers 2` on PostgreSQL, every JSON-RPC call on a new
 * connection (node:cluster hands connections to the workers in turn), and the
 * workers' own logs ("a2a call" at debug level and "turn finished", each with
 * its pid) say which worker served what. GetTask, SubscribeToTask and
 * CancelTask reach tasks whose turn runs on the other worker.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { hangReply, jsonReply, startFakeAgent } from '../support/fake-agent.js';
import { sampleRegistry } from '../support/switchboard-harness.js';
import { createDatabaseFactory, postgresAvailable } from '../support/services.js';
import { spawnServer, type ServerProcess } from './harness.js';

const hasPostgres = await postgresAvailable();
const databases = createDatabaseFactory('a2a_workers');
afterAll(() => databases.dropAll());

interface RpcReply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** One JSON-RPC call on a connection of its own (no keep-alive): the cluster picks the worker. */
function rpcOnNewConnection(url: string, method: string, params: unknown, sse = false): Promise<{ replies: RpcReply[] }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const call = httpRequest(
      `${url}/a2a`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'a2a-version': '1.0', connection: 'close', ...(sse ? { accept: 'text/event-stream' } : {}) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          try {
            const replies = sse
              ? text
                  .split('\n')
                  .filter((line) => line.startsWith('data:'))
                  .map((line) => JSON.parse(line.slice(5)) as RpcReply)
              : [JSON.parse(text) as RpcReply];
            resolve({ replies });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

interface LogLine {
  pid: number;
  msg: string;
  method?: string;
  taskId?: string;
  session?: string;
  outcome?: string;
}

function logLines(server: ServerProcess): LogLine[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

const stateOf = (value: unknown): string | undefined => (value as { status?: { state?: string } } | undefined)?.status?.state;

describe.skipIf(!hasPostgres)('A2A tasks on serve --workers 2 (PostgreSQL)', () => {
  it('GetTask, SubscribeToTask and CancelTask reach tasks whose turns run on the other worker', { timeout: 150_000 }, async () => {
    const weather = await startFakeAgent(jsonReply({ status: 'completed', output: { city: '北京', forecast: [] }, message: '北京明天晴。' }));
    const flight = await startFakeAgent((body) => (JSON.stringify(body).includes('慢') ? hangReply() : jsonReply({ output: { flights: [] } })));
    const yaml = sampleRegistry('agents_config.yaml', { 7103: flight.url, 7104: weather.url }, { answerCacheTtlS: 0 }).replace(/protocol: http-sse/g, 'protocol: http-json')
      // The hanging calls must outlast a slow machine: only a cancel ends them.
      .replace(/timeout_ms: 10000/g, 'timeout_ms: 60000')
      .replace(/default_timeout_ms: 15000/, 'default_timeout_ms: 60000');
    const server = await spawnServer({ registryYaml: yaml, env: { DATABASE_URL: await databases.create(), LOG_LEVEL: 'debug' }, args: ['--workers', '2'], startTimeoutMs: 60_000 });
    try {
      // A completed task, then GetTask eight times, each on a new connection.
      const sent = (await rpcOnNewConnection(server.url, 'SendMessage', { message: { messageId: 'w-get-1', contextId: 'w-get-ctx', role: 'ROLE_USER', parts: [{ text: '你好' }] } })).replies[0]!;
      const task = sent.result!.task as { id: string };
      expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
      for (let index = 0; index < 8; index++) {
        const got = (await rpcOnNewConnection(server.url, 'GetTask', { id: task.id })).replies[0]!;
        expect(got.error).toBeUndefined();
        expect(got.result).toMatchObject({ id: task.id, contextId: 'w-get-ctx' });
        expect(stateOf(got.result)).toBe('TASK_STATE_COMPLETED');
        expect((got.result!.history as unknown[]).length).toBeGreaterThan(0);
      }

      // Four turns that wait on a hanging agent; each is subscribed to and then cancelled on new connections.
      const running: { id: string; contextId: string }[] = [];
      for (let index = 0; index < 4; index++) {
        const reply = (
          await rpcOnNewConnection(server.url, 'SendMessage', {
            message: { messageId: `w-cancel-${index}`, contextId: `w-cancel-ctx-${index}`, role: 'ROLE_USER', parts: [{ text: '查一下明天从北京到上海的机票，慢一点' }] },
            configuration: { returnImmediately: true },
          })
        ).replies[0]!;
        running.push(reply.result!.task as { id: string; contextId: string });
      }
      // Every turn is under way (its flight call waits) before anything is cancelled.
      await expect.poll(() => flight.calls.length, { timeout: 30_000 }).toBe(4);
      // Two subscriptions per task on back-to-back connections, so one of each pair lands on the other worker.
      const subscriptions = running.flatMap((entry) => [0, 1].map(() => rpcOnNewConnection(server.url, 'SubscribeToTask', { id: entry.id }, true)));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const [index, entry] of running.entries()) {
        // A probe call after every second cancel shifts the workers' turn-taking against the tasks' order.
        if (index === 2) await rpcOnNewConnection(server.url, 'GetTask', { id: entry.id });
        const cancelled = (await rpcOnNewConnection(server.url, 'CancelTask', { id: entry.id })).replies[0]!;
        expect(cancelled.error, JSON.stringify(cancelled.error)).toBeUndefined();
        expect(stateOf(cancelled.result)).toBe('TASK_STATE_CANCELED');
      }
      for (const [index, subscription] of subscriptions.entries()) {
        const { replies } = await subscription;
        expect(Object.keys(replies[0]!.result!)).toEqual(['task']);
        expect(stateOf((replies.at(-1)!.result! as { statusUpdate?: unknown; task?: unknown }).statusUpdate ?? replies.at(-1)!.result!.task), `subscription ${index}: ${JSON.stringify(replies.map((reply) => [Object.keys(reply.result ?? {})[0], stateOf(Object.values(reply.result ?? {})[0]), reply.error]))}`).toBe('TASK_STATE_CANCELED');
      }
      for (const entry of running) {
        const got = (await rpcOnNewConnection(server.url, 'GetTask', { id: entry.id })).replies[0]!;
        expect(stateOf(got.result)).toBe('TASK_STATE_CANCELED');
      }

      // The logs: which worker ran each turn, which served each call.
      await expect.poll(() => logLines(server).filter((line) => line.msg === 'turn finished' && line.session?.startsWith('w-cancel-ctx-')).length, { timeout: 20_000 }).toBe(4);
      const lines = logLines(server);
      const turnPid = new Map(lines.filter((line) => line.msg === 'turn finished').map((line) => [line.session!, line.pid]));
      expect(lines.filter((line) => line.msg === 'turn finished' && line.session?.startsWith('w-cancel-ctx-')).map((line) => line.outcome)).toEqual(Array(4).fill('cancelled'));
      const callsOn = (method: string) => lines.filter((line) => line.msg === 'a2a call' && line.method === method);
      const getPids = callsOn('GetTask').filter((line) => line.taskId === task.id).map((line) => line.pid);
      expect(new Set(getPids).size).toBe(2);
      expect(getPids.some((pid) => pid !== turnPid.get('w-get-ctx'))).toBe(true);
      const crossCancels = callsOn('CancelTask').filter((line) => {
        // CancelTask is answered once per task here: the served-by worker is the one that cancelled.
        const entry = running.find((candidate) => candidate.id === line.taskId)!;
        return line.pid !== turnPid.get(entry.contextId);
      });
      expect(crossCancels.length).toBeGreaterThan(0);
      const crossSubscriptions = callsOn('SubscribeToTask').filter((line) => line.pid !== turnPid.get(running.find((candidate) => candidate.id === line.taskId)!.contextId));
      expect(crossSubscriptions.length).toBeGreaterThan(0);
      console.log(
        `a2a --workers 2: GetTask served by pids ${[...new Set(getPids)].join(', ')} (turn on ${turnPid.get('w-get-ctx')}); ` +
          `${crossCancels.length}/4 CancelTask and ${crossSubscriptions.length}/4 SubscribeToTask served by the worker not running the turn`,
      );
    } finally {
      expect(await server.stop()).toBe(0);
      await Promise.all([weather.close(), flight.close()]);
    }
  });
});
