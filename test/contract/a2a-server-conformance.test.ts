/**
 * Conformance of Switchboard's own A2A server (`/.well-known/agent-card.json`,
 * `POST /a2a`, JSON-RPC binding) to the A2A v1.0 specification, at MUST level,
 * for the operations the card declares: Agent Card per version, SendMessage,
 * SendStreamingMessage, GetTask, CancelTask, SubscribeToTask (v0.3
 * `tasks/resubscribe`), ListTasks, the JSON-RPC error codes, `A2A-Version`
 * negotiation, JSON forms, and CONTRACT §3 "A2A, v4 readings". Each check is
 * named after the statement it tests (section of the v1.0 specification in
 * brackets). Callers: raw JSON-RPC over fetch where the wire form is the point,
 * the stock clients of `@a2a-js/sdk` 1.x and of the 0.3 SDK elsewhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  ClientFactory as LegacyClientFactory,
  ClientFactoryOptions as LegacyClientFactoryOptions,
  DefaultAgentCardResolver as LegacyCardResolver,
} from 'a2a-sdk-03/client';
import { hangReply, jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

let agents: FakeAgent[];
let board: TestSwitchboard;

beforeAll(async () => {
  const hotel = await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' }));
  const limo = await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00', destination: '北京饭店' }, message: '王师傅将在7点接您。' }));
  const flight = await startFakeAgent((body) =>
    JSON.stringify(body).includes('慢') ? hangReply() : jsonReply({ output: { flights: [{ flight_no: 'CA1501', departure: '08:00', arrival: '10:10', price: 1200 }] } }),
  );
  const weather = await startFakeAgent(
    sseReply({ progress: ['正在查询天气…'], result: { status: 'completed', output: { city: '北京', forecast: [{ date: '2026-11-23', condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } }),
  );
  agents = [hotel, limo, flight, weather];
  const yaml = sampleRegistry('agents_config.yaml', { 7101: hotel.url, 7102: limo.url, 7103: flight.url, 7104: weather.url }, { answerCacheTtlS: 0 });
  board = await startTestSwitchboard({ registryYaml: yaml, now: () => new Date(2026, 10, 22, 10, 0, 0) });
});

afterAll(async () => {
  await board.close();
  await Promise.all(agents.map((agent) => agent.close()));
});

interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** One JSON-RPC call; `version` '' sends no `A2A-Version` header. */
async function rpc(method: string, params: unknown, version = '1.0', id: unknown = 1): Promise<RpcReply> {
  const response = await fetch(`${board.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(version === '' ? {} : { 'A2A-Version': version }) },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RpcReply;
}

async function rawPost(body: string): Promise<{ status: number; body: RpcReply }> {
  const response = await fetch(`${board.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body });
  return { status: response.status, body: (await response.json()) as RpcReply };
}

/** The v1.0 JSON of a user message. */
function wireMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** Reads an SSE JSON-RPC stream into its `result` payloads. */
async function rpcStream(method: string, params: unknown, version = '1.0', onEvent?: (result: Record<string, unknown>) => Promise<void> | void): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${board.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'A2A-Version': version },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }),
  });
  expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
  const results: Record<string, unknown>[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      if (data === '') continue;
      const parsed = JSON.parse(data) as RpcReply;
      if (parsed.error) throw new Error(`stream error ${parsed.error.code}: ${parsed.error.message}`);
      results.push(parsed.result!);
      await onEvent?.(parsed.result!);
    }
  }
  return results;
}

const stateOf = (result: Record<string, unknown>): string | undefined =>
  ((result.task ?? result.statusUpdate) as { status?: { state?: string } } | undefined)?.status?.state;

function keysDeep(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => keysDeep(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [`${path}.${key}`, ...keysDeep(inner, `${path}.${key}`)]);
}

async function fetchCard(version?: string): Promise<{ status: number; card: Record<string, unknown> }> {
  const response = await fetch(`${board.url}/.well-known/agent-card.json`, { headers: version === undefined ? {} : { 'A2A-Version': version } });
  return { status: response.status, card: (await response.json()) as Record<string, unknown> };
}

const V03_ONLY_FIELDS = ['url', 'preferredTransport', 'protocolVersion', 'supportsAuthenticatedExtendedCard', 'additionalInterfaces'];

const legacyFactory = () =>
  new LegacyClientFactory(
    LegacyClientFactoryOptions.createFrom(LegacyClientFactoryOptions.default, {
      cardResolver: new LegacyCardResolver({ fetchImpl: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'A2A-Version': '0.3' } }) }),
    }),
  );

describe('Agent Card [8.2, 4.4, CONTRACT v4]', () => {
  it('A2A Servers MUST make an Agent Card available (at /.well-known/agent-card.json)', async () => {
    const { status, card } = await fetchCard();
    expect(status).toBe(200);
    expect(card.name).toBe('Switchboard');
  });

  it('without A2A-Version the card is a valid v1.0 card: no v0.3-only field at its top level', async () => {
    const { card } = await fetchCard();
    for (const field of V03_ONLY_FIELDS) expect(card, field).not.toHaveProperty(field);
    expect(card.supportedInterfaces).toEqual(expect.arrayContaining([expect.objectContaining({ protocolBinding: 'JSONRPC', protocolVersion: '1.0', url: `${board.url}/a2a` })]));
  });

  it('a v1.0 card has its REQUIRED fields: name, description, supportedInterfaces (non-empty), version, capabilities, default modes, skills with id/name/description/tags', async () => {
    for (const version of [undefined, '1.0']) {
      const { card } = await fetchCard(version);
      expect(typeof card.name).toBe('string');
      expect(typeof card.description).toBe('string');
      expect(typeof card.version).toBe('string');
      expect(card.capabilities).toEqual(expect.any(Object));
      expect((card.supportedInterfaces as unknown[]).length).toBeGreaterThan(0);
      for (const entry of card.supportedInterfaces as Record<string, unknown>[]) {
        expect(entry.url).toMatch(/^https?:\/\//);
        expect(typeof entry.protocolBinding).toBe('string');
        // Patch version numbers SHOULD NOT be used in Agent Cards [3.6]: Major.Minor only.
        expect(entry.protocolVersion).toMatch(/^\d+\.\d+$/);
      }
      expect((card.defaultInputModes as unknown[]).length).toBeGreaterThan(0);
      expect((card.defaultOutputModes as unknown[]).length).toBeGreaterThan(0);
      for (const skill of card.skills as Record<string, unknown>[]) {
        expect(skill).toEqual(expect.objectContaining({ id: expect.any(String), name: expect.any(String), description: expect.any(String), tags: expect.any(Array) }));
      }
    }
  });

  it('Agents MUST declare all supported protocols in their AgentCard [5.2]: JSON-RPC for 1.0 and for 0.3', async () => {
    const { card } = await fetchCard();
    const declared = (card.supportedInterfaces as { protocolBinding: string; protocolVersion: string }[]).map((entry) => `${entry.protocolBinding}@${entry.protocolVersion}`);
    expect(declared).toEqual(expect.arrayContaining(['JSONRPC@1.0', 'JSONRPC@0.3']));
  });

  it('All JSON serializations MUST use camelCase field names [5.5] (the card)', async () => {
    const { card } = await fetchCard();
    const snake = keysDeep(card).filter((path) => /_/.test(path.split('.').at(-1)!) && !path.includes('.securitySchemes.'));
    expect(snake).toEqual([]);
  });

  it('a request with A2A-Version: 0.3 gets a v0.3 card (url, preferredTransport, protocolVersion 0.3), readable by the 0.3 SDK', async () => {
    const { card } = await fetchCard('0.3');
    expect(card).toMatchObject({ url: `${board.url}/a2a`, preferredTransport: 'JSONRPC', protocolVersion: '0.3' });
    const client = await legacyFactory().createFromUrl(board.url);
    expect(client).toBeDefined();
  });

  it('the stock 1.x resolver reads the v1.0 card', async () => {
    const card = await new DefaultAgentCardResolver().resolve(board.url);
    expect(card.supportedInterfaces[0]).toMatchObject({ protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.skills.length).toBeGreaterThan(0);
  });
});

describe('JSON-RPC binding errors [9.5, CONTRACT v4]', () => {
  it('-32700 JSONParseError: the server received invalid JSON (id null, answered by the A2A route)', async () => {
    const { status, body } = await rawPost('{bad');
    expect(status).toBe(200);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('-32600 InvalidRequestError: the JSON sent is not a valid Request object ("str", [], {"foo":1}, no method)', async () => {
    for (const text of ['"str"', '[]', '{"foo":1}', '42', 'null', '{"jsonrpc":"2.0","id":3}']) {
      const { status, body } = await rawPost(text);
      expect(status, text).toBe(200);
      expect(body, text).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      expect(body.error!.message.length).toBeGreaterThan(0);
    }
    expect((await rawPost('{"jsonrpc":"2.0","id":3}')).body.id).toBe(3);
  });

  it('-32601 MethodNotFoundError: the requested method does not exist', async () => {
    expect((await rpc('NoSuchMethod', {})).error?.code).toBe(-32601);
  });

  it('-32602 InvalidParamsError: the method parameters are invalid (SendMessage without a message id)', async () => {
    expect((await rpc('SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } })).error?.code).toBe(-32602);
  });

  it('-32001 TaskNotFoundError: the task ID does not exist or is not accessible (GetTask, CancelTask, SubscribeToTask)', async () => {
    expect((await rpc('GetTask', { id: 'no-such-task' })).error?.code).toBe(-32001);
    expect((await rpc('CancelTask', { id: 'no-such-task' })).error?.code).toBe(-32001);
    expect((await rpc('SubscribeToTask', { id: 'no-such-task' })).error?.code).toBe(-32001);
  });

  it('push notification operations MUST return PushNotificationNotSupportedError (-32003) when capabilities.pushNotifications is false [3.3.4]', async () => {
    const { card } = await fetchCard();
    expect((card.capabilities as { pushNotifications?: boolean }).pushNotifications).not.toBe(true);
    const reply = await rpc('CreateTaskPushNotificationConfig', { taskId: 'x', pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } });
    expect(reply.error?.code).toBe(-32003);
  });

  it('Get Extended Agent Card MUST return UnsupportedOperationError (-32004) when capabilities.extendedAgentCard is not true [3.3.4]', async () => {
    expect((await rpc('GetExtendedAgentCard', {})).error?.code).toBe(-32004);
  });

  it('VersionNotSupportedError (-32009): if the version is not supported, agents MUST return it [3.6.2]', async () => {
    const reply = await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样') }, '99.0');
    expect(reply.error?.code).toBe(-32009);
  });

  it('Agents MUST interpret empty value as 0.3 version [3.6.2]: no A2A-Version header speaks 0.3 method names', async () => {
    expect((await rpc('SendMessage', { message: wireMessage('你好') }, '')).error?.code).toBe(-32601);
    const legacy = await rpc('message/send', { message: { kind: 'message', messageId: 'ver-03', role: 'user', parts: [{ kind: 'text', text: '你好' }] } }, '');
    expect(legacy.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });
});

describe('SendMessage and the task it returns [3.1.1, 3.4.1, 5.5, 5.6.1]', () => {
  it('Agents MUST generate a new contextId when a Message has none, and MUST include it in the response', async () => {
    const reply = await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样') });
    const task = reply.result!.task as { id: string; contextId: string };
    expect(task.id).toMatch(/\S/);
    expect(task.contextId).toMatch(/\S/);
  });

  it('Agents MUST accept and preserve client-provided contextId values', async () => {
    const reply = await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样', { contextId: 'conf-ctx-1' }) });
    expect((reply.result!.task as { contextId: string }).contextId).toBe('conf-ctx-1');
  });

  it('Enum values MUST be their string names (TASK_STATE_*, ROLE_*) and timestamps ISO 8601 in UTC (Z) [5.5, 5.6.1]', async () => {
    const reply = await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样') });
    const task = reply.result!.task as { status: { state: string; timestamp: string; message: { role: string } } };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message.role).toBe('ROLE_AGENT');
    expect(task.status.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(keysDeep(reply.result).filter((path) => /_/.test(path.split('.').at(-1)!) && !path.includes('.data.') && !path.includes('.metadata.'))).toEqual([]);
  });

  it('unless returnImmediately, the operation MUST wait until a terminal or interrupted state [3.2.2]', async () => {
    const done = await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样'), configuration: { returnImmediately: false } });
    expect(stateOf(done.result!)).toBe('TASK_STATE_COMPLETED');
    const interrupted = await rpc('SendMessage', { message: wireMessage('帮我订酒店') });
    expect(stateOf(interrupted.result!)).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('Agents MUST infer contextId from the task if only taskId is provided [3.4.2]', async () => {
    const first = (await rpc('SendMessage', { message: wireMessage('帮我订酒店', { contextId: 'conf-infer-1' }) })).result!.task as { id: string };
    const second = await rpc('SendMessage', { message: wireMessage('北京，明天', { taskId: first.id }) });
    expect(second.result!.task).toMatchObject({ id: first.id, contextId: 'conf-infer-1' });
  });

  it('Agents MUST reject messages containing mismatching contextId and taskId [3.4.2]', async () => {
    const first = (await rpc('SendMessage', { message: wireMessage('帮我订酒店', { contextId: 'conf-mismatch-1' }) })).result!.task as { id: string };
    const reply = await rpc('SendMessage', { message: wireMessage('北京，明天', { taskId: first.id, contextId: 'some-other-context' }) });
    expect(reply.error?.code).toBeDefined();
    expect(reply.result).toBeUndefined();
  });

  it('Messages sent to Tasks in a terminal state cannot be accepted: UnsupportedOperationError (-32004) [3.1.1]', async () => {
    const done = (await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样') })).result!.task as { id: string };
    expect((await rpc('SendMessage', { message: wireMessage('再说一遍', { taskId: done.id }) })).error?.code).toBe(-32004);
  });

  it('the stock 1.x client completes a turn (SendMessage)', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const message: Message = {
      messageId: 'conf-sdk-1',
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: '北京明天天气怎么样' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const task = (await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});

describe('SendStreamingMessage and task states [3.1.2, 3.5.2, CONTRACT v4]', () => {
  it('a task lifecycle stream MUST begin with the Task object and MUST close when the task reaches a terminal state', async () => {
    const results = await rpcStream('SendStreamingMessage', { message: wireMessage('北京明天天气怎么样') });
    expect(Object.keys(results[0]!)).toEqual(['task']);
    expect(stateOf(results.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    expect(results.slice(0, -1).every((result) => stateOf(result) !== 'TASK_STATE_COMPLETED')).toBe(true);
  });

  it('a task state only moves forward: a follow-up on an input-required task goes to working, never back to submitted', async () => {
    const first = (await rpc('SendMessage', { message: wireMessage('帮我订酒店', { contextId: 'conf-forward-1' }) })).result!.task as { id: string };
    const states = (await rpcStream('SendStreamingMessage', { message: wireMessage('北京，明天', { taskId: first.id, contextId: 'conf-forward-1' }) })).map(stateOf).filter(Boolean);
    expect(states).not.toContain('TASK_STATE_SUBMITTED');
    expect(states[0]).toBe('TASK_STATE_WORKING');
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    const order = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'];
    const ranks = states.map((state) => order.indexOf(state!));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('the 0.3 SDK client streams with message/stream (v0.3 names and kebab-case states)', async () => {
    const client = await legacyFactory().createFromUrl(board.url);
    const states: string[] = [];
    for await (const event of client.sendMessageStream({ message: { kind: 'message', role: 'user', messageId: 'conf-v03-s', parts: [{ kind: 'text', text: '北京明天天气怎么样' }] } })) {
      if (event.kind === 'status-update') states.push(event.status.state);
      if (event.kind === 'task') states.push(event.status.state);
    }
    expect(states[0]).toBe('submitted');
    expect(states.at(-1)).toBe('completed');
  });
});

describe('GetTask and historyLength [3.1.3, 3.2.4]', () => {
  it('GetTask returns the current state; historyLength 0 returns no history, N > 0 at most N recent messages', async () => {
    const first = (await rpc('SendMessage', { message: wireMessage('帮我订酒店', { contextId: 'conf-history-1' }) })).result!.task as { id: string };
    await rpc('SendMessage', { message: wireMessage('北京，明天', { taskId: first.id }) });
    const full = (await rpc('GetTask', { id: first.id })).result as { history?: { messageId: string }[]; status: { state: string } };
    expect(full.status.state).toBe('TASK_STATE_COMPLETED');
    expect(full.history!.length).toBeGreaterThanOrEqual(2);
    const none = (await rpc('GetTask', { id: first.id, historyLength: 0 })).result as { history?: unknown[] };
    expect(none.history ?? []).toEqual([]);
    const one = (await rpc('GetTask', { id: first.id, historyLength: 1 })).result as { history?: { messageId: string }[] };
    expect(one.history).toHaveLength(1);
    expect(one.history![0]!.messageId).toBe(full.history!.at(-1)!.messageId);
  });
});

describe('CancelTask and SubscribeToTask [3.1.5, 3.1.6, 3.3.1]', () => {
  it('CancelTask returns the updated task with its canceled status; the operation is idempotent; a subscriber MUST get the Task first and the stream MUST terminate at the terminal state', async () => {
    let taskId = '';
    const subscribed: Promise<Record<string, unknown>[]>[] = [];
    const results = await rpcStream('SendStreamingMessage', { message: wireMessage('查一下明天从北京到上海的机票，慢一点', { contextId: 'conf-cancel-1' }) }, '1.0', async (result) => {
      if (result.task && taskId === '') {
        taskId = (result.task as { id: string }).id;
        subscribed.push(rpcStream('SubscribeToTask', { id: taskId }));
      }
      if (result.statusUpdate && (result.statusUpdate as { status: { message?: unknown } }).status.message && subscribed.length === 1) {
        subscribed.push(Promise.resolve([]));
        const cancelled = await rpc('CancelTask', { id: taskId });
        expect(stateOf({ task: cancelled.result })).toBe('TASK_STATE_CANCELED');
        const again = await rpc('CancelTask', { id: taskId });
        expect(stateOf({ task: again.result })).toBe('TASK_STATE_CANCELED');
      }
    });
    expect(stateOf(results.at(-1)!)).toBe('TASK_STATE_CANCELED');
    const subscription = await subscribed[0]!;
    expect(Object.keys(subscription[0]!)).toEqual(['task']);
    expect(stateOf(subscription.at(-1)!)).toBe('TASK_STATE_CANCELED');
    expect(stateOf({ task: (await rpc('GetTask', { id: taskId })).result })).toBe('TASK_STATE_CANCELED');
  });

  it('TaskNotCancelableError (-32002): the task is not in a cancelable state (completed)', async () => {
    const done = (await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样') })).result!.task as { id: string };
    expect((await rpc('CancelTask', { id: done.id })).error?.code).toBe(-32002);
  });

  it('SubscribeToTask on a task in a terminal state: UnsupportedOperationError (-32004)', async () => {
    const done = (await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样') })).result!.task as { id: string };
    expect((await rpc('SubscribeToTask', { id: done.id })).error?.code).toBe(-32004);
  });
});

describe('ListTasks [3.1.4]', () => {
  it('nextPageToken MUST always be present; tasks sorted by last update, newest first', async () => {
    await rpc('SendMessage', { message: wireMessage('北京明天天气怎么样', { contextId: 'conf-list-1' }) });
    await rpc('SendMessage', { message: wireMessage('上海明天天气怎么样', { contextId: 'conf-list-1' }) });
    const listed = (await rpc('ListTasks', { contextId: 'conf-list-1' })).result as { tasks: { status: { timestamp: string } }[]; nextPageToken: string };
    expect(listed.nextPageToken).toBe('');
    expect(listed.tasks).toHaveLength(2);
    const times = listed.tasks.map((task) => task.status.timestamp);
    expect(times).toEqual([...times].sort().reverse());
  });
});
