/**
 * The production path: the package as built by `npm run build` and installed (no
 * TypeScript sources, no tsx) serves a turn through its `bin/switchboard.js`, finds
 * its pages and schemas, reloads an edited registry in its load worker, and runs
 * `validate` and `check-agent` (docs/deploy.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { builtPackage, type BuiltPackage } from '../support/built-package.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { CLINIC_AGENT_IDS, CLINIC_TOKEN, clinicRegistry, type ClinicUrls } from './clinic-registry.js';
import { childEnv, freePort, runCommand, sleep, spawnServer, stage, turn, type ServerProcess } from './harness.js';

// The build compiles the whole server (tens of seconds; minutes on a loaded machine).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 600_000 });

const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
const VACCINE = (url: string) => `  - id: vaccine_agent
    name: 疫苗预约
    description: 预约接种疫苗。Vaccination booking.
    keywords: ["疫苗", "接种", "vaccine"]
    endpoint:
      url: ${url}
      protocol: http-json
`;

let built: BuiltPackage;
let server: ServerProcess;
let urls: ClinicUrls;
const agents: FakeAgent[] = [];

beforeAll(async () => {
  built = await builtPackage();
  const appointment = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-1001' }, message: '已为您预约内科门诊。' }));
  const report = await startFakeAgent(sseReply({ progress: ['正在调取报告…'], result: { status: 'completed', output: { wbc: 5.2 }, message: '报告各项指标正常。' } }));
  const vaccine = await startFakeAgent(jsonReply({ output: {}, message: '疫苗已预约。' }));
  agents.push(appointment, report, vaccine);
  const dead = `http://127.0.0.1:${await freePort()}/invoke`;
  urls = { appointment: appointment.url, report: report.url, billing: dead, triage: dead, pharmacy: dead };
  server = await spawnServer({ registryYaml: clinicRegistry(urls), env: { CLINIC_TOKEN }, entry: built.bin, startTimeoutMs: 30_000 });
});

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  await Promise.all(agents.map((agent) => agent.close()));
});

function switchboard(...args: string[]) {
  return runCommand(process.execPath, [built.bin, ...args], childEnv({ LOG_LEVEL: 'silent', CLINIC_TOKEN }));
}

describe('the built package', () => {
  it('serves a turn from the compiled JavaScript, with its pages, schemas and version', async () => {
    expect(server.output()).not.toContain('tsx');
    const events = await turn(server.url, { query: '帮我挂明天内科的号，电话13800138000，再查一下报告 RPT-123456', user_id: 'u-built', session_id: 'built-1' }, CLINIC_AGENT_IDS);
    expect(stage(events, 'agent_done').map((event) => event.agent_id).sort()).toEqual(['appointment_agent', 'report_agent']);
    expect(stage(events, 'agent_stream').map((event) => event.content)).toContain('正在调取报告…');
    expect(agents[0]!.calls).toHaveLength(1);

    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { version: string } };
    expect(openapi.info.version).toBe(version);
    const schema = await fetch(`${server.url}/v1/schemas/response-state.json`);
    expect(schema.status).toBe(200);
  });

  it('reloads an edited registry through its load worker', async () => {
    writeFileSync(server.configPath, clinicRegistry(urls) + VACCINE(agents[2]!.url));
    let ids: string[] = [];
    for (let waited = 0; waited < 15_000 && !ids.includes('vaccine_agent'); waited += 200) {
      await sleep(200);
      const body = (await (await fetch(`${server.url}/v1/agents`)).json()) as { agents: { id: string }[]; last_error: unknown };
      expect(body.last_error).toBeNull();
      ids = body.agents.map((card) => card.id);
    }
    expect(ids).toContain('vaccine_agent');
  });

  it('runs --version, validate and check-agent with plain node', async () => {
    const versionRun = await switchboard('--version');
    expect(versionRun.stdout.trim()).toBe(`switchboard ${version}`);
    expect(versionRun.stderr).toBe('');
    const validated = await switchboard('validate', server.configPath);
    expect(validated.code, validated.all).toBe(0);
    const checked = await switchboard('check-agent', agents[0]!.url);
    expect(checked.code, checked.all).toBe(0);
    expect(checked.stdout).toMatch(/^PASS {2}MUST {4}envelope_shape/m);
  });
});
