/**
 * Switchboard reached the way other frameworks reach an agent: its Agent Card,
 * `POST /a2a` driven by the real `@a2a-js/sdk` clients (a default 1.x
 * `ClientFactory`, and the 0.3 SDK's client for v0.3 peers), and `POST /v1/agui`
 * driven by the real `@ag-ui/client` `HttpAgent`. Behind it: the sample travel
 * registry on fake sub-agents.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { ClientFactory as LegacyClientFactory, ClientFactoryOptions as LegacyClientFactoryOptions, DefaultAgentCardResolver as LegacyCardResolver } from 'a2a-sdk-03/client';
import { HttpAgent } from '@ag-ui/client';
import { fakeAgentCard, hangReply, jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { createAgentClient } from '../../src/agents/agent-client.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../support/switchboard-harness.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);
const TOMORROW = '2026-11-23';

let agents: Record<'hotel' | 'limo' | 'flight' | 'weather', FakeAgent>;
let board: TestSwitchboard;
let yaml: string;

beforeAll(async () => {
  agents = {
    hotel: await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。' })),
    limo: await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00', destination: '北京饭店' }, message: '王师傅将在7点接您。' })),
    flight: await startFakeAgent((body) =>
      JSON.stringify(body).includes('慢') ? hangReply() : jsonReply({ output: { flights: [{ flight_no: 'CA1501', departure: '08:00', arrival: '10:10', price: 1200 }] } }),
    ),
    weather: await startFakeAgent(
      sseReply({ progress: ['正在查询北京的天气…'], result: { status: 'completed', output: { city: '北京', forecast: [{ date: TOMORROW, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } }),
    ),
  };
  yaml = sampleRegistry('agents_config.yaml', { 7101: agents.hotel.url, 7102: agents.limo.url, 7103: agents.flight.url, 7104: agents.weather.url }, { answerCacheTtlS: 0 });
  board = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW });
});

afterAll(async () => {
  await board.close();
  await Promise.all(Object.values(agents).map((agent) => agent.close()));
});

function userMessage(text: string, contextId = '', extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

const send = (message: Message) => ({ tenant: '', message, configuration: undefined, metadata: undefined });

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

function dataOf(parts: readonly Part[] | undefined): Record<string, unknown> {
  return Object.assign({}, ...(parts ?? []).map((part) => (part.content?.$case === 'data' ? part.content.value : {})));
}

describe('the Agent Card', () => {
  it('is a v1.0 card with the JSON-RPC interface at /a2a, streaming, and one skill per enabled agent', async () => {
    const card = await new DefaultAgentCardResolver().resolve(board.url);
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${board.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills.map((skill) => skill.id)).toEqual(['hotel_agent', 'limo_agent', 'flight_agent', 'weather_agent']);
    const hotel = card.skills.find((skill) => skill.id === 'hotel_agent')!;
    expect(hotel.examples.length).toBeGreaterThan(0);
    expect(hotel.tags.length).toBeGreaterThan(0);
  });

  it('follows a hot reload: a disabled agent is no longer a skill', async () => {
    const skillIds = async () => (await new DefaultAgentCardResolver().resolve(board.url)).skills.map((skill) => skill.id);
    const flightEnabled = () => board.switchboard.registry.current().enabledAgents.some((agent) => agent.id === 'flight_agent');
    try {
      await reloadTo(yaml.replace(/(- id: flight_agent\n(?:.*\n)*?    enabled: )true/, '$1false'), () => !flightEnabled());
      expect(await skillIds()).toEqual(['hotel_agent', 'limo_agent', 'weather_agent']);
    } finally {
      // Later tests in this file call flight_agent: the registry is put back whatever happened above.
      await reloadTo(yaml, flightEnabled);
    }
    expect(await skillIds()).toEqual(['hotel_agent', 'limo_agent', 'flight_agent', 'weather_agent']);
  }, 70_000);
});

/**
 * Writes the registry file and waits for the reload that makes `reached` true (the registry's own
 * reload event, not a sleep); the file is written again now and then in case a change went unseen.
 */
async function reloadTo(text: string, reached: () => boolean, timeoutMs = 30_000): Promise<void> {
  const registry = board.switchboard.registry;
  let unsubscribe = () => {};
  const applied = new Promise<void>((resolve) => {
    unsubscribe = registry.onReload(() => {
      if (reached()) resolve();
    });
  });
  const deadline = Date.now() + timeoutMs;
  try {
    while (!reached()) {
      if (Date.now() > deadline) throw new Error(`the registry did not reload within ${timeoutMs} ms`);
      writeFileSync(board.configPath, text);
      await Promise.race([applied, new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
  } finally {
    unsubscribe();
  }
}

describe('a default @a2a-js/sdk 1.x client', () => {
  it('gets a completed task for a request that needs nothing more', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const result = (await client.sendMessage(send(userMessage('北京明天天气怎么样')))) as Task;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(result.status?.message?.parts)).toContain('晴');
    expect(agents.weather.calls.length).toBeGreaterThan(0);
  });

  it('holds a two-turn conversation: input-required with the keys, then completed in the same context', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const contextId = 'a2a-conv-1';
    const first = (await client.sendMessage(send(userMessage('帮我订酒店', contextId)))) as Task;
    expect(first.contextId).toBe(contextId);
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const data = dataOf(first.status?.message?.parts);
    expect(data.missing_keys).toEqual(expect.arrayContaining(['city', 'check_in_date']));
    expect(data.semantic_info).toEqual([
      expect.objectContaining({ sub_agent_id: 'hotel_agent', keys: expect.arrayContaining(['city']), key_descriptions: expect.any(Array), fe_widgets_suggestion: expect.any(Array) }),
    ]);
    const hotelCalls = agents.hotel.calls.length;
    const second = (await client.sendMessage(send(userMessage('北京，明天', contextId)))) as Task;
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(second.status?.message?.parts)).toContain('北京饭店');
    expect(agents.hotel.calls.length).toBe(hotelCalls + 1);
    expect((agents.hotel.calls.at(-1)!.body as { inputs: Record<string, unknown> }).inputs).toMatchObject({ city: '北京', check_in_date: TOMORROW });
  });

  it('streams working updates, then the completed task', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const states: TaskState[] = [];
    const texts: string[] = [];
    for await (const event of client.sendMessageStream(send(userMessage('上海明天天气怎么样', 'a2a-stream-1')))) {
      if (event.payload?.$case === 'statusUpdate') {
        states.push(event.payload.value.status!.state);
        texts.push(textOf(event.payload.value.status?.message?.parts));
      }
    }
    expect(states.filter((state) => state === TaskState.TASK_STATE_WORKING).length).toBeGreaterThan(1);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts).toContain('正在查询北京的天气…');
  });

  it('cancels a running turn with CancelTask', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    let taskId = '';
    const seen: TaskState[] = [];
    const stream = client.sendMessageStream(send(userMessage('查一下明天从北京到上海的机票，慢一点', 'a2a-cancel-1')));
    for await (const event of stream) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id;
      if (event.payload?.$case === 'statusUpdate') {
        seen.push(event.payload.value.status!.state);
        if (event.payload.value.status?.message && textOf(event.payload.value.status.message.parts) !== '' && seen.length === 3) {
          const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
          expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        }
      }
    }
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    const fetched = await client.getTask({ tenant: '', id: taskId });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('never runs a second turn for a repeated message id', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const message = userMessage('查一下明天从北京到上海的机票', 'a2a-idem-1');
    const before = agents.flight.calls.length;
    const first = (await client.sendMessage(send(message))) as Task;
    const again = (await client.sendMessage(send(message))) as Task;
    expect(agents.flight.calls.length).toBe(before + 1);
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(again.status?.message?.parts)).toBe(textOf(first.status?.message?.parts));
  });
});

/** A 0.3 client's card request names its version: without `A2A-Version: 0.3` the card is the v1.0 one (CONTRACT §3 "A2A, v4 readings"). */
const legacyFactory = () =>
  new LegacyClientFactory(
    LegacyClientFactoryOptions.createFrom(LegacyClientFactoryOptions.default, {
      cardResolver: new LegacyCardResolver({ fetchImpl: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), 'A2A-Version': '0.3' } }) }),
    }),
  );

describe('a v0.3 client (@a2a-js/sdk 0.3)', () => {
  it('completes a turn with message/send and is asked for keys in the same context', async () => {
    const client = await legacyFactory().createFromUrl(board.url);
    const first = await client.sendMessage({ message: { kind: 'message', role: 'user', messageId: 'v03-1', contextId: 'a2a-v03-1', parts: [{ kind: 'text', text: '帮我订酒店' }] } });
    expect(first).toMatchObject({ kind: 'task', contextId: 'a2a-v03-1', status: { state: 'input-required' } });
    const second = await client.sendMessage({ message: { kind: 'message', role: 'user', messageId: 'v03-2', contextId: 'a2a-v03-1', parts: [{ kind: 'text', text: '北京，明天' }] } });
    expect(second).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });

  it('streams with message/stream', async () => {
    const client = await legacyFactory().createFromUrl(board.url);
    const kinds: string[] = [];
    let last = '';
    for await (const event of client.sendMessageStream({ message: { kind: 'message', role: 'user', messageId: 'v03-s', parts: [{ kind: 'text', text: '北京明天天气怎么样' }] } })) {
      kinds.push(event.kind);
      if (event.kind === 'status-update') last = event.status.state;
    }
    expect(kinds[0]).toBe('task');
    expect(last).toBe('completed');
  });
});

describe('delegation depth on /a2a', () => {
  it('refuses a call at the depth limit with 400 before any stream opens', async () => {
    const response = await fetch(`${board.url}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-switchboard-depth': '3', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('DELEGATION_DEPTH_EXCEEDED');
  });
});

describe('AG-UI HttpAgent', () => {
  const run = async (text: string, threadId: string, forwardedProps: Record<string, unknown> = { user_id: 'ag-u1' }) => {
    const agent = new HttpAgent({ url: `${board.url}/v1/agui`, threadId, initialMessages: [{ id: `u-${threadId}`, role: 'user', content: text }] });
    const events: { type: string; [key: string]: unknown }[] = [];
    const result = await agent.runAgent({ runId: `run-${threadId}`, forwardedProps }, { onEvent: ({ event }) => void events.push(event as never) });
    return { agent, events, result };
  };

  it('renders a two-intent turn: steps, one assistant message, RUN_FINISHED', async () => {
    const { agent, events } = await run('帮我订北京的酒店，明天入住，再告诉我北京明天的天气', 'agui-two-1');
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    const steps = events.filter((event) => event.type === 'STEP_STARTED').map((event) => event.stepName as string);
    expect(steps).toEqual(expect.arrayContaining(['intent', 'plan', 'summarize']));
    expect(steps.filter((name) => name.startsWith('agent:hotel_agent')).length).toBe(1);
    expect(steps.filter((name) => name.startsWith('agent:weather_agent')).length).toBe(1);
    expect(events.filter((event) => event.type === 'STEP_FINISHED').length).toBe(steps.length);
    const reply = agent.messages.filter((message) => message.role === 'assistant');
    expect(reply).toHaveLength(1);
    expect(String(reply[0]!.content)).toContain('北京饭店');
    expect(String(reply[0]!.content)).toContain('晴');
  });

  it('renders a missing-key turn with a CUSTOM semantic_info event', async () => {
    const { events } = await run('帮我订酒店', 'agui-miss-1', { user_id: 'ag-u2' });
    const custom = events.find((event) => event.type === 'CUSTOM' && event.name === 'semantic_info');
    expect(custom?.value).toEqual([expect.objectContaining({ sub_agent_id: 'hotel_agent', keys: expect.arrayContaining(['city']) })]);
    const finished = events.at(-1)!;
    expect(finished).toMatchObject({ type: 'RUN_FINISHED', result: { outcome: 'input_required' } });
  });

  it('answers 400 without forwardedProps.user_id when keys are off', async () => {
    const response = await fetch(`${board.url}/v1/agui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't1', runId: 'r1', messages: [{ id: 'm', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string; message: string } }).error.message).toContain('forwardedProps.user_id');
  });
});

describe('API keys and tenants on /a2a and /v1/agui', () => {
  let keyed: TestSwitchboard;
  beforeAll(async () => {
    keyed = await startTestSwitchboard({ registryYaml: yaml, now: () => NOW, apiKeys: ['key-one=tenant_one', 'key-two=tenant_two'] });
  });
  afterAll(() => keyed.close());

  const clientWith = (key?: string) =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        clientConfig: { interceptors: [{ before: async (args) => void (args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, ...(key ? { authorization: `Bearer ${key}` } : {}) } }), after: async () => undefined }] },
      }),
    ).createFromUrl(keyed.url);

  it('refuses a call without a key (401) and runs one with a key', async () => {
    const anonymous = await clientWith();
    await expect(anonymous.sendMessage(send(userMessage('北京明天天气怎么样')))).rejects.toThrow(/401/);
    const one = await clientWith('key-one');
    const task = (await one.sendMessage(send(userMessage('北京明天天气怎么样', 'keyed-1')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('keeps tasks inside their tenant: another key cannot read them', async () => {
    const one = await clientWith('key-one');
    const task = (await one.sendMessage(send(userMessage('北京明天天气怎么样', 'keyed-2')))) as Task;
    expect((await one.getTask({ tenant: '', id: task.id })).id).toBe(task.id);
    const two = await clientWith('key-two');
    await expect(two.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
  });

  it('takes the key\'s tenant as the AG-UI user when forwardedProps.user_id is absent', async () => {
    const agent = new HttpAgent({ url: `${keyed.url}/v1/agui`, threadId: 'keyed-agui', headers: { authorization: 'Bearer key-one' }, initialMessages: [{ id: 'u1', role: 'user', content: '北京明天天气怎么样' }] });
    const types: string[] = [];
    await agent.runAgent({ runId: 'r-keyed' }, { onEvent: ({ event }) => void types.push(event.type) });
    expect(types.at(-1)).toBe('RUN_FINISHED');
  });
});

describe('held side effects', () => {
  let held: TestSwitchboard;
  beforeAll(async () => {
    const keep = sampleRegistry('agents_config.yaml', { 7101: agents.hotel.url, 7102: agents.limo.url, 7103: agents.flight.url, 7104: agents.weather.url }, { answerCacheTtlS: 0, keepSideEffects: true });
    held = await startTestSwitchboard({ registryYaml: keep, now: () => NOW });
  });
  afterAll(() => held.close());

  it('A2A: a booking ends input-required with the confirmation in a data part; "确认" in the same context runs it', async () => {
    const client = await new ClientFactory().createFromUrl(held.url);
    const first = (await client.sendMessage(send(userMessage('帮我订北京的酒店，明天入住', 'held-1')))) as Task;
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const data = dataOf(first.status?.message?.parts);
    expect(data.outcome).toBe('awaiting_confirmation');
    expect(data.confirmation).toEqual([expect.objectContaining({ sub_agent_id: 'hotel_agent', task_id: expect.any(String), summary: expect.any(String) })]);
    const before = agents.hotel.calls.length;
    const second = (await client.sendMessage(send(userMessage('确认', 'held-1')))) as Task;
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(agents.hotel.calls.length).toBe(before + 1);
  });

  it('A2A: a data part { confirm: [task_id] } confirms too', async () => {
    const client = await new ClientFactory().createFromUrl(held.url);
    const first = (await client.sendMessage(send(userMessage('帮我订北京的酒店，明天入住', 'held-2')))) as Task;
    const [request] = dataOf(first.status?.message?.parts).confirmation as { task_id: string }[];
    const before = agents.hotel.calls.length;
    const confirm = userMessage('', 'held-2');
    confirm.parts = [{ content: { $case: 'data', value: { confirm: [request!.task_id] } }, metadata: undefined, filename: '', mediaType: 'application/json' }];
    const second = (await client.sendMessage(send(confirm))) as Task;
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(agents.hotel.calls.length).toBe(before + 1);
  });

  it('AG-UI: a booking sends a CUSTOM confirmation event and finishes awaiting confirmation', async () => {
    const agent = new HttpAgent({ url: `${held.url}/v1/agui`, threadId: 'held-agui', initialMessages: [{ id: 'h1', role: 'user', content: '帮我订北京的酒店，明天入住' }] });
    const events: { type: string; [key: string]: unknown }[] = [];
    await agent.runAgent({ runId: 'r-held', forwardedProps: { user_id: 'held-u' } }, { onEvent: ({ event }) => void events.push(event as never) });
    const custom = events.find((event) => event.type === 'CUSTOM' && event.name === 'confirmation');
    expect(custom?.value).toEqual([expect.objectContaining({ sub_agent_id: 'hotel_agent' })]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { outcome: 'awaiting_confirmation' } });
  });
});

describe('Switchboard as the A2A sub-agent of another (the a2a adapter: a 1.x client with legacyCompat)', () => {
  it('answers a delegated sub-task and passes the delegation depth on to its own agents', async () => {
    const client = createAgentClient({ retryBaseDelayMs: 1 });
    const card = fakeAgentCard({ url: board.url, protocol: 'a2a', id: 'switchboard_peer' });
    const before = agents.weather.calls.length;
    const outcome = await client.call(
      card,
      { task_id: 'outer_task_1', message: '广州明天天气怎么样', inputs: {}, user_id: 'outer-u', thread_id: 'outer-s1', trace_id: 'outer-trace', upstream: {} },
      { delegationDepth: 1 },
    );
    expect(outcome).toMatchObject({ ok: true, reply: { status: 'completed', output: { outcome: 'completed' } } });
    expect(agents.weather.calls.length).toBe(before + 1);
    expect(agents.weather.calls.at(-1)!.headers['x-switchboard-depth']).toBe('2');
  });

  it('is refused at the depth limit: a failed sub-task, not a loop', async () => {
    const client = createAgentClient({ retryBaseDelayMs: 1 });
    const outcome = await client.call(
      fakeAgentCard({ url: board.url, protocol: 'a2a', id: 'switchboard_peer' }),
      { task_id: 'outer_task_2', message: '北京明天天气怎么样', inputs: {}, user_id: 'outer-u', thread_id: 'outer-s2', trace_id: 'outer-trace', upstream: {} },
      { delegationDepth: 3 },
    );
    expect(outcome).toMatchObject({ ok: false, code: 'http_status' });
  });
});

describe('a turn handed to a human', () => {
  it('A2A: the escalation notice is the completed task\'s text, outcome escalated', async () => {
    const client = await new ClientFactory().createFromUrl(board.url);
    const task = (await client.sendMessage(send(userMessage('转人工', 'esc-1')))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message?.parts)).not.toBe('');
    expect(dataOf(task.artifacts.flatMap((artifact) => artifact.parts))).toMatchObject({ outcome: 'escalated' });
  });

  it('AG-UI: the notice arrives as an assistant message', async () => {
    const agent = new HttpAgent({ url: `${board.url}/v1/agui`, threadId: 'esc-agui', initialMessages: [{ id: 'e1', role: 'user', content: '转人工' }] });
    await agent.runAgent({ runId: 'r-esc', forwardedProps: { user_id: 'esc-u' } });
    const replies = agent.messages.filter((message) => message.role === 'assistant');
    expect(replies.length).toBeGreaterThan(0);
    expect(String(replies.at(-1)!.content)).not.toBe('');
  });
});
