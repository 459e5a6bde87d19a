/**
 * docs/api.md#registry-file hot reload against the running CLI server: editing the
 * registry file adds / disables agents for the next request; a broken file
 * is rejected whole (last good registry stays, `last_error` names file and
 * line); a turn already running finishes on the snapshot it started with.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jsonReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { CLINIC_AGENT_IDS, CLINIC_TOKEN, clinicRegistry, type ClinicUrls } from './clinic-registry.js';
import { chatSse, freePort, sleep, spawnServer, stage, turn, type ServerProcess } from './harness.js';

const ALL_IDS = [...CLINIC_AGENT_IDS, 'vaccine_agent'];
let server: ServerProcess;
let appointment: FakeAgent;
let billing: FakeAgent;
let vaccine: FakeAgent;
let urls: ClinicUrls;

interface AgentsBody {
  version: string;
  loaded_at: string;
  last_error: null | { file: string; line: number; col?: number; message: string };
  agents: { id: string; enabled: boolean }[];
}

async function agentsBody(): Promise<AgentsBody> {
  return (await (await fetch(`${server.url}/v1/agents`)).json()) as AgentsBody;
}

/** Polls `/v1/agents` until `condition` holds (the watcher needs a moment). */
async function waitForRegistry(condition: (body: AgentsBody) => boolean, what: string): Promise<AgentsBody> {
  let last: AgentsBody | undefined;
  for (let waited = 0; waited < 8000; waited += 100) {
    last = await agentsBody();
    if (condition(last)) return last;
    await sleep(100);
  }
  throw new Error(`registry never reached: ${what}; last ${JSON.stringify(last).slice(0, 500)}`);
}

const VACCINE = (url: string) => `  - id: vaccine_agent
    name: 疫苗预约
    description: 预约接种疫苗。Vaccination booking.
    keywords: ["疫苗", "接种", "vaccine"]
    endpoint:
      url: ${url}
      protocol: http-json
      timeout_ms: 800
      retries: 0
`;

function write(text: string): void {
  writeFileSync(server.configPath, text);
}

beforeAll(async () => {
  appointment = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-9' }, message: '已预约。' }));
  billing = await startFakeAgent(jsonReply({ output: { paid: true }, message: '已缴费。' }));
  vaccine = await startFakeAgent(jsonReply({ output: {}, message: '疫苗已预约。' }));
  const dead = `http://127.0.0.1:${await freePort()}/invoke`;
  urls = { appointment: appointment.url, report: dead, billing: billing.url, triage: dead, pharmacy: dead };
  server = await spawnServer({ registryYaml: clinicRegistry(urls), env: { CLINIC_TOKEN } });
});

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  await Promise.all([appointment, billing, vaccine].map((agent) => agent?.close()));
});

it('routing follows edits; a broken file keeps the last good registry and shows last_error; a fix clears it', async () => {
  const first = await agentsBody();
  expect(first.last_error).toBeNull();

  // Add an agent.
  write(clinicRegistry(urls) + VACCINE(vaccine.url));
  const added = await waitForRegistry((body) => body.agents.some((card) => card.id === 'vaccine_agent'), 'vaccine_agent added');
  expect(added.version).not.toBe(first.version);
  expect(added.last_error).toBeNull();
  await turn(server.url, { query: '我想预约接种疫苗', user_id: 'u-reload', session_id: 'reload-1' }, ALL_IDS);
  expect(vaccine.calls).toHaveLength(1);

  // Disable the appointment agent: no longer routed.
  write(clinicRegistry(urls).replace('    description: 预约门诊挂号。', '    enabled: false\n    description: 预约门诊挂号。') + VACCINE(vaccine.url));
  const disabled = await waitForRegistry(
    (body) => body.agents.find((card) => card.id === 'appointment_agent')?.enabled === false,
    'appointment disabled',
  );
  const before = appointment.calls.length;
  const events = await turn(server.url, { query: '帮我挂明天内科的号，电话13800138000', user_id: 'u-reload', session_id: 'reload-2' }, ALL_IDS);
  expect(appointment.calls.length).toBe(before);
  expect(events.some((event) => event.agent_id === 'appointment_agent')).toBe(false);

  // A broken edit: schema error on a known line.
  const good = clinicRegistry(urls) + VACCINE(vaccine.url);
  const broken = good.replace('      protocol: http-sse', '      protocol: grpc');
  const brokenLine = broken.split('\n').findIndex((line) => line.includes('protocol: grpc')) + 1;
  write(broken);
  const rejected = await waitForRegistry((body) => body.last_error !== null, 'last_error set');
  expect(rejected.version).toBe(disabled.version);
  expect(rejected.agents).toEqual(disabled.agents);
  expect(rejected.last_error!.line).toBe(brokenLine);
  expect(rejected.last_error!.file).toContain('agents_config.yaml');
  expect(rejected.last_error!.message.length).toBeGreaterThan(0);
  // The last good registry still routes.
  await turn(server.url, { query: '我想预约接种疫苗', user_id: 'u-reload', session_id: 'reload-3' }, ALL_IDS);
  expect(vaccine.calls).toHaveLength(2);

  // A YAML syntax error is rejected the same way.
  write('version: 1\nagents:\n  - id: [unclosed\n');
  const syntax = await waitForRegistry((body) => body.last_error !== null && body.last_error.line !== brokenLine, 'syntax error reported');
  expect(syntax.version).toBe(disabled.version);
  expect(syntax.last_error!.line).toBeGreaterThanOrEqual(3);

  // Fixing the file applies it and clears the error.
  write(good);
  const fixed = await waitForRegistry((body) => body.last_error === null && body.agents.find((card) => card.id === 'appointment_agent')?.enabled === true, 'fixed');
  expect(fixed.version).not.toBe(disabled.version);
});

it('a turn already running finishes on the registry it started with', async () => {
  write(clinicRegistry(urls));
  await waitForRegistry((body) => body.last_error === null && !body.agents.some((card) => card.id === 'vaccine_agent'), 'plain registry');
  const slow = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-slow' }, message: '已预约。', delayMs: 1200 }));
  try {
    const slowUrls = { ...urls, appointment: slow.url };
    write(clinicRegistry(slowUrls, { timeoutMs: 3000 }));
    await waitForRegistry((body) => body.last_error === null, 'slow registry');
    await sleep(300);
    const billingBefore = billing.calls.length;
    const running = chatSse(server.url, {
      query: '帮我挂明天内科的号，电话13800138000，挂完帮我缴费，发票发到 pay@example.com',
      user_id: 'u-reload',
      session_id: 'reload-inflight',
    });
    await slow.waitForCalls(1, 5000);
    // Remove billing while the appointment call is running.
    const withoutBilling = clinicRegistry(slowUrls, { timeoutMs: 3000 }).replace(/ {2}- id: billing_agent[\s\S]*?(?= {2}- id: triage_agent)/, '');
    expect(withoutBilling).not.toContain('billing_agent');
    write(withoutBilling);
    await waitForRegistry((body) => !body.agents.some((card) => card.id === 'billing_agent'), 'billing removed');
    const result = await running;
    expect(result.status).toBe(200);
    expect(billing.calls.length).toBe(billingBefore + 1);
    expect(stage(result.events, 'agent_done').map((event) => event.agent_id)).toEqual(['appointment_agent', 'billing_agent']);
  } finally {
    await slow.close();
  }
});
