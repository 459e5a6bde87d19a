/**
 * Contract §2 and §3 over the real CLI server: SSE framing, the event
 * fields and stage table, JSON mode, semantic keys (miss / invalid /
 * completion on the same session), a dependency with upstream output,
 * trace headers, retries with the same task id, and every kind of sub-agent
 * failure ending as one failed sub-task while the others complete.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonReply, rawReply, sseReply, startFakeAgent, statusReply, hangReply, type FakeAgent, type FakeReply } from '../support/fake-agent.js';
import { CLINIC_AGENT_IDS, CLINIC_TOKEN, clinicRegistry } from './clinic-registry.js';
import { chatSse, expectValidStream, finalOf, freePort, spawnServer, stage, turn, type ContractEvent, type ServerProcess } from './harness.js';

type Name = 'appointment' | 'report' | 'billing';
const DEFAULTS: Record<Name, FakeReply> = {
  appointment: jsonReply({ output: { appointment_no: 'A-1001' }, message: '已为您预约内科门诊。' }),
  report: sseReply({ progress: ['正在调取报告…'], result: { status: 'completed', output: { wbc: 5.2 }, message: '报告各项指标正常。' } }),
  billing: jsonReply({ output: { paid: true, invoice: 'INV-7' }, message: '已缴费，发票已发送。' }),
};

let server: ServerProcess;
const agents = {} as Record<Name, FakeAgent>;
/** Per-test behaviour: a function of the call index, else the default reply. */
const script: Partial<Record<Name, (index: number) => FakeReply>> = {};
let deadUrl: string;
let sessionCounter = 0;
const nextSession = () => `clinic-${++sessionCounter}`;
const ids = CLINIC_AGENT_IDS;

const BOOK = '帮我挂明天内科的号，电话13800138000';
const BOOK_AND_REPORT = '帮我挂明天内科的号，电话13800138000，再查一下报告 RPT-123456';

beforeAll(async () => {
  for (const name of Object.keys(DEFAULTS) as Name[]) {
    let offset = 0;
    agents[name] = await startFakeAgent((_body, index) => {
      const chosen = script[name];
      if (!chosen) return DEFAULTS[name];
      return chosen(index - offset);
    });
    // Each test's script counts calls from 0.
    Object.defineProperty(agents[name], 'resetScript', { value: () => (offset = agents[name].calls.length) });
  }
  deadUrl = `http://127.0.0.1:${await freePort()}/invoke`;
  server = await spawnServer({
    registryYaml: clinicRegistry({
      appointment: agents.appointment.url,
      report: agents.report.url,
      billing: agents.billing.url,
      // Nothing listens here: every triage call is a refused connection.
      triage: deadUrl,
      pharmacy: deadUrl,
    }),
    env: { CLINIC_TOKEN },
  });
});

afterAll(async () => {
  const code = await server?.stop();
  expect(code).toBe(0);
  await Promise.all(Object.values(agents).map((agent) => agent.close()));
});

beforeEach(() => {
  for (const name of Object.keys(DEFAULTS) as Name[]) {
    delete script[name];
    (agents[name] as unknown as { resetScript(): void }).resetScript();
  }
});

function callsSince(name: Name, before: number) {
  return agents[name].calls.slice(before);
}

describe('SSE framing and events', () => {
  it('frames every event as "data: <json>" followed by a blank line, text/event-stream, one done at the end', async () => {
    const result = await chatSse(server.url, { query: BOOK, user_id: 'u-frame', session_id: nextSession() });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(result.raw.endsWith('\n\n')).toBe(true);
    const frames = result.raw.split('\n\n').filter((frame) => frame.length > 0 && !frame.startsWith(':'));
    expect(frames.length).toBe(result.events.length);
    for (const frame of frames) {
      const dataLines = frame.split('\n').filter((line) => line.startsWith('data: '));
      expect(dataLines, frame).toHaveLength(1);
      expect(() => JSON.parse(dataLines[0]!.slice(6))).not.toThrow();
    }
    expectValidStream(result.events, ids);
    expect(result.events.filter((event) => event.type === 'done')).toHaveLength(1);
  });

  it('each frame is "id: <turn_id>:<seq>" then exactly one "data: <json>" line (docs/api.md#events)', async () => {
    const result = await chatSse(server.url, { query: '你好', user_id: 'u-frame', session_id: nextSession() });
    const frames = result.raw.split('\n\n').filter((frame) => frame.length > 0 && !frame.startsWith(':'));
    expect(frames.length).toBeGreaterThan(1);
    frames.forEach((frame, index) => {
      expect(frame).toMatch(/^id: [^\n:]+:\d+\ndata: [^\n]*$/);
      const event = result.events[index]!;
      expect(frame.split('\n')[0]).toBe(`id: ${String(event.metadata.turn_id)}:${event.metadata.seq}`);
    });
  });

  it('business turn: stages in table order, agent events carry the sub-agent id, final is not thinking', async () => {
    const session = nextSession();
    const events = await turn(server.url, { query: BOOK, user_id: 'u-stage', session_id: session }, ids);
    const stages = events.map((event) => event.metadata.stage);
    expect(stages.slice(0, 4)).toEqual(['intent_start', 'intent_done', 'plan_start', 'plan_done']);
    expect(stages).toContain('agent_start');
    expect(stages).toContain('agent_done');
    expect(stages).toContain('summarize_start');
    expect(stage(events, 'agent_start')[0]!.agent_id).toBe('appointment_agent');
    expect(events.every((event) => event.session_id === session)).toBe(true);
    const final = finalOf(events);
    expect(final.agent_id).toBe('summarize');
    expect(final.content).toContain('已为您预约内科门诊');
  });

  it('generates a session id when none is given and uses it in every event', async () => {
    const events = await turn(server.url, { query: '你好', user_id: 'u-nosession' }, ids);
    expect(events[0]!.session_id.length).toBeGreaterThan(0);
  });

  it('simple turns answer directly from the supervisor; a human request ends in escalate', async () => {
    const greeting = await turn(server.url, { query: '你好', user_id: 'u-simple', session_id: nextSession() }, ids);
    expect(finalOf(greeting).agent_id).toBe('supervisor');
    expect(stage(greeting, 'agent_start')).toHaveLength(0);
    const human = await turn(server.url, { query: '转人工', user_id: 'u-simple', session_id: nextSession() }, ids);
    expect(stage(human, 'escalate')).toHaveLength(1);
  });

  it('http-sse progress is relayed as agent_stream with the sub-agent id', async () => {
    const events = await turn(server.url, { query: '查一下报告 RPT-123456', user_id: 'u-sse', session_id: nextSession() }, ids);
    const streamed = stage(events, 'agent_stream');
    expect(streamed.map((event) => event.content)).toContain('正在调取报告…');
    expect(streamed.every((event) => event.agent_id === 'report_agent' && event.is_thinking)).toBe(true);
    expect(finalOf(events).content).toContain('报告各项指标正常');
  });

  it('a disabled agent is never routed', async () => {
    const events = await turn(server.url, { query: '帮我去药房配药', user_id: 'u-disabled', session_id: nextSession() }, ids);
    expect(events.some((event) => event.agent_id === 'pharmacy_agent')).toBe(false);
  });

  it('JSON mode returns { session_id, final_answer, events } with the same events', async () => {
    const session = nextSession();
    const response = await fetch(`${server.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: BOOK, user_id: 'u-json', session_id: session }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { session_id: string; final_answer: string; events: ContractEvent[] };
    expect(body.session_id).toBe(session);
    expect(typeof body.final_answer).toBe('string');
    expect(body.final_answer).toContain('已为您预约内科门诊');
    expectValidStream(body.events, ids);
    expect(finalOf(body.events).content).toBe(body.final_answer);
  });
});

describe('semantic keys', () => {
  it('missing keys: miss entry index-aligned with "" for a key without widget; next turn on the session completes it', async () => {
    const session = nextSession();
    const before = agents.appointment.calls.length;
    const first = await turn(server.url, { query: '我要挂号', user_id: 'u-miss', session_id: session }, ids);
    const expected = [
      {
        type: 'miss',
        sub_agent_id: 'appointment_agent',
        keys: ['department', 'visit_date', 'phone'],
        key_descriptions: ['就诊科室', '就诊日期', '联系电话'],
        fe_widgets_suggestion: ['department_picker', '', 'phone_input'],
        key_options: [['内科', '外科', '儿科'], [], []],
      },
    ];
    expect(stage(first, 'plan_done')[0]!.metadata.semantic_info).toEqual(expected);
    expect(finalOf(first).metadata.semantic_info).toEqual(expected);
    expect(agents.appointment.calls.length).toBe(before);

    const second = await turn(server.url, { query: '儿科，后天，13900139000', user_id: 'u-miss', session_id: session }, ids);
    const calls = callsSince('appointment', before);
    expect(calls).toHaveLength(1);
    expect((calls[0]!.body as { inputs: Record<string, unknown> }).inputs).toMatchObject({ department: '儿科', phone: '13900139000' });
    expect((calls[0]!.body as { inputs: Record<string, unknown> }).inputs.visit_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(finalOf(second).metadata.semantic_info ?? []).toEqual([]);
  });

  it('a present but invalid value is reported as invalid, not miss', async () => {
    const events = await turn(server.url, { query: '缴费，发票发到 pay@@bad', user_id: 'u-invalid', session_id: nextSession() }, ids);
    expect(finalOf(events).metadata.semantic_info).toEqual([
      { type: 'invalid', sub_agent_id: 'billing_agent', keys: ['email'], key_descriptions: ['发票邮箱'], fe_widgets_suggestion: [''], key_options: [[]] },
    ]);
    const dateEvents = await turn(server.url, { query: '帮我挂2026-02-30内科的号，电话13800138000', user_id: 'u-invalid', session_id: nextSession() }, ids);
    expect(finalOf(dateEvents).metadata.semantic_info).toEqual([
      { type: 'invalid', sub_agent_id: 'appointment_agent', keys: ['visit_date'], key_descriptions: ['就诊日期'], fe_widgets_suggestion: [''], key_options: [[]] },
    ]);
  });
});

describe('sub-agent wire protocol', () => {
  it('a dependent agent gets the §2 body with the upstream output; card headers, x-request-id and x-trace-id arrive', async () => {
    const session = nextSession();
    const appointmentBefore = agents.appointment.calls.length;
    const billingBefore = agents.billing.calls.length;
    const events = await turn(
      server.url,
      { query: '帮我挂明天内科的号，电话13800138000，挂完帮我缴费，发票发到 pay@example.com', user_id: 'u-dep', session_id: session },
      ids,
      { 'x-trace-id': 'trace-clinic-0001' },
    );
    const [appointmentCall] = callsSince('appointment', appointmentBefore);
    const [billingCall] = callsSince('billing', billingBefore);
    expect(appointmentCall && billingCall).toBeTruthy();
    const upstreamBody = appointmentCall!.body as Record<string, unknown>;
    const body = billingCall!.body as Record<string, unknown>;
    for (const call of [upstreamBody, body]) {
      expect(typeof call.task_id).toBe('string');
      expect(typeof call.message).toBe('string');
      expect((call.message as string).length).toBeGreaterThan(0);
      expect(call.user_id).toBe('u-dep');
      expect(call.thread_id).toBe(session);
      expect(call.trace_id).toBe('trace-clinic-0001');
      expect(typeof call.inputs).toBe('object');
    }
    expect(body.inputs).toEqual({ email: 'pay@example.com' });
    expect(body.upstream).toEqual({ [upstreamBody.task_id as string]: { agent: 'appointment_agent', output: { appointment_no: 'A-1001' } } });
    expect(billingCall!.headers['content-type']).toMatch(/^application\/json/);
    expect(appointmentCall!.headers.authorization).toBe(`Bearer ${CLINIC_TOKEN}`);
    expect(appointmentCall!.headers['x-clinic']).toBe('north');
    for (const call of [appointmentCall!, billingCall!]) {
      expect(call.headers['x-trace-id']).toBe('trace-clinic-0001');
      expect(call.headers['x-request-id']).toBeTruthy();
    }
    // The dependent agent starts only after its upstream finished.
    const order = events.filter((event) => event.metadata.stage.startsWith('agent_')).map((event) => `${event.metadata.stage}:${event.agent_id}`);
    expect(order.indexOf('agent_done:appointment_agent')).toBeLessThan(order.indexOf('agent_start:billing_agent'));
  });

  it('a retried call (after a 5xx) carries the same task_id', async () => {
    script.appointment = (index) => (index === 0 ? statusReply(503, 'busy') : DEFAULTS.appointment);
    const before = agents.appointment.calls.length;
    const events = await turn(server.url, { query: BOOK, user_id: 'u-retry', session_id: nextSession() }, ids);
    const calls = callsSince('appointment', before);
    expect(calls).toHaveLength(2);
    expect((calls[0]!.body as { task_id: string }).task_id).toBe((calls[1]!.body as { task_id: string }).task_id);
    expect(stage(events, 'agent_done').map((event) => event.agent_id)).toContain('appointment_agent');
  });

  it('a 4xx reply is not retried', async () => {
    script.appointment = () => statusReply(400, 'bad');
    const before = agents.appointment.calls.length;
    await turn(server.url, { query: BOOK, user_id: 'u-4xx', session_id: nextSession() }, ids);
    expect(callsSince('appointment', before)).toHaveLength(1);
  });

  const failures: [string, () => FakeReply][] = [
    ['timeout', () => hangReply()],
    ['non-2xx reply', () => statusReply(502, 'bad gateway')],
    ['unparseable body', () => rawReply('{"status": "completed", "output": ')],
    ['output failing output_schema', () => jsonReply({ output: { appointment: 42 } })],
    ['status failed', () => jsonReply({ status: 'failed', output: {}, message: '号源已满' })],
  ];
  for (const [label, reply] of failures) {
    it(`appointment ${label} → failed sub-task; the report still completes`, async () => {
      script.appointment = reply;
      const events = await turn(server.url, { query: BOOK_AND_REPORT, user_id: 'u-fail', session_id: nextSession() }, ids);
      expect(stage(events, 'agent_failed').map((event) => event.agent_id)).toEqual(['appointment_agent']);
      expect(stage(events, 'agent_done').map((event) => event.agent_id)).toEqual(['report_agent']);
      expect(finalOf(events).content).toContain('报告各项指标正常');
    });
  }

  it('an SSE stream that ends without result → failed sub-task; the appointment still completes', async () => {
    script.report = () => sseReply({ progress: ['正在调取…'], cutBeforeResult: true });
    const events = await turn(server.url, { query: BOOK_AND_REPORT, user_id: 'u-fail', session_id: nextSession() }, ids);
    expect(stage(events, 'agent_failed').map((event) => event.agent_id)).toEqual(['report_agent']);
    expect(stage(events, 'agent_done').map((event) => event.agent_id)).toEqual(['appointment_agent']);
  });

  it('a refused connection → failed sub-task; the report still completes', async () => {
    // triage_agent's URL is a closed port.
    const events = await turn(server.url, { query: '帮我分诊，再查一下报告 RPT-123456', user_id: 'u-fail', session_id: nextSession() }, ids);
    expect(stage(events, 'agent_failed').map((event) => event.agent_id)).toEqual(['triage_agent']);
    expect(stage(events, 'agent_done').map((event) => event.agent_id)).toEqual(['report_agent']);
  });

  it('a failed upstream skips its dependent without calling it', async () => {
    script.appointment = () => statusReply(500, 'down');
    const before = agents.billing.calls.length;
    const events = await turn(
      server.url,
      { query: '帮我挂明天内科的号，电话13800138000，挂完帮我缴费，发票发到 pay@example.com', user_id: 'u-skip', session_id: nextSession() },
      ids,
    );
    expect(callsSince('billing', before)).toHaveLength(0);
    expect(stage(events, 'agent_failed').map((event) => event.agent_id)).toContain('appointment_agent');
  });

  it('an agent reply that names an agent id does not leak the id into event content', async () => {
    script.appointment = () => jsonReply({ output: { appointment_no: 'appointment_agent-7' }, message: '已由 appointment_agent 受理，请转 billing_agent 缴费' });
    await turn(server.url, { query: BOOK, user_id: 'u-leak', session_id: nextSession() }, ids);
  });
});

describe('agent replies', () => {
  it('input_required naming a declared key asks for it with the key\'s description and widget', async () => {
    script.appointment = () => jsonReply({ status: 'input_required', output: {}, message: '请补充联系电话。', missingKeys: ['phone'] });
    const events = await turn(server.url, { query: BOOK, user_id: 'u-input', session_id: nextSession() }, ids);
    expect(finalOf(events).metadata.semantic_info).toEqual([
      { type: 'miss', sub_agent_id: 'appointment_agent', keys: ['phone'], key_descriptions: ['联系电话'], fe_widgets_suggestion: ['phone_input'], key_options: [[]] },
    ]);
  });

  // docs/api.md#sub-agent-wire-protocol: `message` is the user-facing text; a key the registry does
  // not declare has no description, so the agent's question is what the user sees.
  it('input_required with an undeclared key passes the agent\'s question on, not the raw key', async () => {
    script.appointment = () => jsonReply({ status: 'input_required', output: {}, message: '请问您是初诊还是复诊？', missingKeys: ['visit_type'] });
    const events = await turn(server.url, { query: BOOK, user_id: 'u-input', session_id: nextSession() }, ids);
    const final = finalOf(events).content;
    expect(final).toContain('初诊还是复诊');
    expect(final).not.toContain('visit_type');
  });

  it('escalates to a human after escalate_after_failures consecutive failed turns on a session', async () => {
    script.appointment = () => statusReply(500, 'down');
    const session = nextSession();
    const first = await turn(server.url, { query: BOOK, user_id: 'u-esc', session_id: session }, ids);
    expect(stage(first, 'escalate')).toHaveLength(0);
    const second = await turn(server.url, { query: '帮我挂明天外科的号，电话13800138001', user_id: 'u-esc', session_id: session }, ids);
    expect(stage(second, 'escalate')).toHaveLength(1);
  });
});

describe('sessions', () => {
  it('409 when a turn is already running on the session', async () => {
    script.appointment = () => ({ ...DEFAULTS.appointment, delayMs: 600 });
    const session = nextSession();
    const first = chatSse(server.url, { query: BOOK, user_id: 'u-409', session_id: session });
    await agents.appointment.waitForCalls(agents.appointment.calls.length + 1, 5000);
    const second = await chatSse(server.url, { query: BOOK, user_id: 'u-409', session_id: session });
    expect(second.status).toBe(409);
    const error = JSON.parse(second.raw) as { error: { code: string; message: string } };
    expect(typeof error.error.code).toBe('string');
    expect(typeof error.error.message).toBe('string');
    expectValidStream((await first).events, ids);
  });

  it('transcript: owner reads the turns, another user cannot, unknown session is 404', async () => {
    const session = nextSession();
    await turn(server.url, { query: BOOK, user_id: 'owner-1', session_id: session }, ids);
    const own = await fetch(`${server.url}/v1/sessions/${session}/messages?user_id=owner-1`);
    expect(own.status).toBe(200);
    const text = await own.text();
    // docs/api.md#personal-data: the stored transcript keeps the query with its phone number masked.
    expect(text).toContain(BOOK.replace('13800138000', '138****8000'));
    expect(text).not.toContain('13800138000');
    const other = await fetch(`${server.url}/v1/sessions/${session}/messages?user_id=intruder`);
    expect([403, 404]).toContain(other.status);
    expect(await other.text()).not.toContain(BOOK);
    const missing = await fetch(`${server.url}/v1/sessions/no-such-session/messages?user_id=owner-1`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBeTruthy();
    const noUser = await fetch(`${server.url}/v1/sessions/${session}/messages`);
    expect(noUser.status).toBe(400);
    expect(((await noUser.json()) as { error: { message: string } }).error.message).toContain('user_id');
  });
});

describe('secrets', () => {
  it('the header secret never appears in /v1/agents, transcripts or logs', async () => {
    const agentsBody = await (await fetch(`${server.url}/v1/agents`)).text();
    expect(agentsBody).not.toContain(CLINIC_TOKEN);
    expect(agentsBody).not.toContain('north');
    expect(server.output()).not.toContain(CLINIC_TOKEN);
  });
});
