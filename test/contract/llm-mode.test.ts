/**
 * LLM mode (docs/api.md#model-replies, docs/api.md#environment) through the environment of the real CLI server:
 * `LLM_BASE_URL` / `LLM_API_KEY` / `LLM_MODEL` point at a local fake
 * endpoint. A well-behaved business turn costs at most two model calls; under
 * every misbehaviour (not JSON, schema-invalid JSON, 429 with Retry-After,
 * 5xx, a hang past `LLM_TIMEOUT_MS`, a cut answer stream) the turn is still a
 * valid stream that reaches the sub-agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { CLINIC_AGENT_IDS, CLINIC_TOKEN, clinicRegistry } from './clinic-registry.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest as ModelRequest, type ScriptedReplySpec as ModelReply } from '../support/fake-openai.js';
import { finalOf, freePort, spawnServer, stage, turn, type ServerProcess } from './harness.js';

const ids = CLINIC_AGENT_IDS;
const ANSWER = '您的内科门诊已预约成功，预约号 A-77，请按时就诊。';
let server: ServerProcess;
let model: FakeOpenAI;
let appointment: FakeAgent;
let phone = 13800138000;
let session = 0;

/** A fresh query (the intent cache must not answer it) for a full appointment. */
function bookingQuery(): { query: string; phone: string } {
  phone += 1;
  return { query: `帮我挂2026-12-01内科的号，电话${phone}`, phone: String(phone) };
}

function intentFor(query: string, phoneNumber: string, inputs?: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: 'business',
    intent: ['appointment_agent'],
    confidence: 'high',
    reason: 'user wants an appointment',
    rewritten_query: query,
    user_friendly_message: '好的，我来帮您处理 appointment_agent 的挂号。',
    task_plan: {
      task_type: 'sequential',
      sub_tasks: [
        {
          task_id: 'task_1',
          description: '预约内科门诊',
          assigned_agent: 'appointment_agent',
          inputs: inputs ?? { department: '内科', visit_date: '2026-12-01', phone: phoneNumber },
          dependencies: [],
        },
      ],
      reasoning: 'one task',
    },
  };
}

/** Streams `ANSWER` for answer calls; `intent` decides the structured calls. */
function script(intent: (request: ModelRequest, structuredIndex: number) => ModelReply, answer: () => ModelReply = () => ({ content: ANSWER })): void {
  let structured = 0;
  model.answerAll((request) => (request.stream ? answer() : intent(request, structured++)));
}

/** One turn in a new session; `userId` other than the default gives a user with no profile yet. */
async function businessTurn(query: string, userId = 'u-llm'): Promise<{ events: Awaited<ReturnType<typeof turn>>; requests: ModelRequest[]; agentCalls: number }> {
  const before = model.requests.length;
  const callsBefore = appointment.calls.length;
  session += 1;
  const events = await turn(server.url, { query, user_id: userId, session_id: `llm-${session}` }, ids);
  return { events, requests: model.requests.slice(before), agentCalls: appointment.calls.length - callsBefore };
}

beforeAll(async () => {
  model = await startFakeOpenAI();
  appointment = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-77' }, message: '预约成功，预约号 A-77。' }));
  const dead = `http://127.0.0.1:${await freePort()}/invoke`;
  server = await spawnServer({
    registryYaml: clinicRegistry({ appointment: appointment.url, report: dead, billing: dead, triage: dead, pharmacy: dead }),
    env: { CLINIC_TOKEN, LLM_BASE_URL: model.baseUrl, LLM_API_KEY: 'sk-contract-test', LLM_MODEL: 'contract-main', LLM_TIMEOUT_MS: '1000' },
  });
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  await model?.close();
  await appointment?.close();
});

describe('LLM mode, well-behaved model', () => {
  it('a business turn costs at most 2 model calls, calls the agent with the planned inputs, and never shows an agent id', async () => {
    const { query, phone: number } = bookingQuery();
    script(() => ({ content: intentFor(query, number) }));
    const { events, requests, agentCalls } = await businessTurn(query);
    expect(requests.length).toBeGreaterThanOrEqual(1);
    expect(requests.length).toBeLessThanOrEqual(2);
    expect(agentCalls).toBe(1);
    expect((appointment.calls.at(-1)!.body as { inputs: unknown }).inputs).toMatchObject({ department: '内科', visit_date: '2026-12-01', phone: number });
    expect(requests.every((request) => typeof request.body.model === 'string')).toBe(true);
    expect(finalOf(events).content).toBe(ANSWER);
    expect(server.output()).not.toContain('sk-contract-test');
  });

  it('a greeting costs at most one model call', async () => {
    script(() => ({ content: { kind: 'simple', simple_kind: 'greeting', intent: [], confidence: 'high', rewritten_query: '你好呀', user_friendly_message: '您好！', answer: '您好！' } }));
    const before = model.requests.length;
    await turn(server.url, { query: '你好呀', user_id: 'u-llm', session_id: 'llm-greeting' }, ids);
    expect(model.requests.length - before).toBeLessThanOrEqual(1);
  });

  it('a missing key in LLM mode is asked for with index-aligned semantic_info', async () => {
    const query = '我想挂个号，具体的还没想好';
    script(() => ({ content: intentFor(query, '', {}) }));
    // A user seen for the first time: no usual department to offer.
    const { events, agentCalls } = await businessTurn(query, 'u-llm-new');
    expect(agentCalls).toBe(0);
    const info = finalOf(events).metadata.semantic_info;
    expect(info).toEqual([
      {
        type: 'miss',
        sub_agent_id: 'appointment_agent',
        keys: ['department', 'visit_date', 'phone'],
        key_descriptions: ['就诊科室', '就诊日期', '联系电话'],
        fe_widgets_suggestion: ['department_picker', '', 'phone_input'],
        key_options: [['内科', '外科', '儿科'], [], []],
      },
    ]);
  });
});

describe('LLM mode, misbehaving model', () => {
  it('intent reply not JSON twice → one retry, then the offline matcher decides; the agent is still called', async () => {
    const { query } = bookingQuery();
    script(() => ({ content: '好的，我觉得用户想挂号。' }));
    const { requests, agentCalls } = await businessTurn(query);
    expect(requests.filter((request) => !request.stream)).toHaveLength(2);
    expect(agentCalls).toBe(1);
  });

  it('schema-invalid JSON then a valid reply → the second reply is used', async () => {
    const { query, phone: number } = bookingQuery();
    script((_request, index) => (index === 0 ? { content: { intent: 'appointment_agent', confidence: 'very' } } : { content: intentFor(query, number) }));
    const { requests, agentCalls } = await businessTurn(query);
    expect(requests.filter((request) => !request.stream)).toHaveLength(2);
    expect(agentCalls).toBe(1);
  });

  it('a body that is not JSON at all (HTML from a proxy) still ends in a valid turn', async () => {
    const { query } = bookingQuery();
    script(() => ({ malformed: true }));
    const { agentCalls } = await businessTurn(query);
    expect(agentCalls).toBe(1);
  });

  it('429 with Retry-After: 1 is honoured, then the call succeeds', async () => {
    const { query, phone: number } = bookingQuery();
    script((_request, index) => (index === 0 ? { status: 429, retryAfter: '1' } : { content: intentFor(query, number) }));
    const { requests, agentCalls } = await businessTurn(query);
    const structured = requests.filter((request) => !request.stream);
    expect(structured).toHaveLength(2);
    expect(structured[1]!.at - structured[0]!.at).toBeGreaterThanOrEqual(900);
    expect(agentCalls).toBe(1);
  });

  it('the answer stream is cut half-way → the final answer still arrives, once, not thinking', async () => {
    const { query, phone: number } = bookingQuery();
    script(() => ({ content: intentFor(query, number) }), () => ({ streamChunks: ['您的内科', '门诊已'], truncateStream: true }));
    const { events, agentCalls } = await businessTurn(query);
    expect(agentCalls).toBe(1);
    const complete = stage(events, 'final').filter((event) => (event.metadata.state as { delta?: boolean } | undefined)?.delta !== true);
    expect(complete).toHaveLength(1);
    expect(complete[0]!.content.length).toBeGreaterThan(0);
  });

  it('5xx on every call → the turn is answered from templates and the agent is still called', async () => {
    const { query } = bookingQuery();
    script(() => ({ status: 503 }), () => ({ status: 503 }));
    const { agentCalls, events } = await businessTurn(query);
    expect(agentCalls).toBe(1);
    expect(finalOf(events).content).toContain('预约成功');
  });

  it('a model that hangs past LLM_TIMEOUT_MS → the turn still completes within a few seconds', async () => {
    const { query } = bookingQuery();
    script(() => ({ hang: true }), () => ({ hang: true }));
    const started = Date.now();
    const { agentCalls } = await businessTurn(query);
    expect(agentCalls).toBe(1);
    expect(Date.now() - started).toBeLessThan(8000);
  });
});
