import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgents, type DemoAgents } from '../../demo/agents.js';
import { jsonReply, startFakeAgent, type FakeAgent } from '../../test/support/fake-agent.js';
import { startDemoA2aAgent, type DemoA2aAgent } from '../../demo/exchange-agent.js';
import { runCommand } from './check-agent-command.js';

function capture(cwd: string, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text), env, cwd },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

describe('switchboard check-agent', () => {
  let agents: DemoAgents;
  let broken: FakeAgent;
  let directory: string;
  beforeAll(async () => {
    agents = await startDemoAgents({ ports: { hotel: 0, limo: 0, flight: 0, weather: 0 }, hotelToken: 'demo-token' });
    broken = await startFakeAgent(jsonReply({ body: { status: 'ok' } }));
    directory = mkdtempSync(join(tmpdir(), 'check-agent-'));
    // The root registry with the demo agents' ephemeral ports.
    let config = readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8');
    config = config.replace('http://127.0.0.1:${DEMO_HOTEL_PORT:-7101}/invoke', agents.urls.hotel).replace('http://127.0.0.1:${DEMO_WEATHER_PORT:-7104}/invoke', agents.urls.weather);
    writeFileSync(join(directory, 'agents.yaml'), config);
  });
  afterAll(async () => {
    await Promise.all([agents.close(), broken.close()]);
    rmSync(directory, { recursive: true, force: true });
  });

  it('checks a registered agent by id with its card, one line per check, exit 0', async () => {
    const run = capture(directory);
    const code = await runCommand(['hotel_agent', '--config', 'agents.yaml'], run.io);
    expect(code, run.stdout() + run.stderr()).toBe(0);
    const lines = run.stdout().trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^hotel_agent \(http:\/\/127\.0\.0\.1:\d+\/invoke\) conforms \(http-json\)$/);
    expect(lines).toContainEqual(expect.stringMatching(/^PASS {2}MUST {4}output_schema +output meets/));
    expect(lines.slice(0, -1).every((line) => /^(PASS|FAIL|SKIP) {2}(MUST|SHOULD) /.test(line))).toBe(true);
  });

  it('prints JSON for CI and exits 1 naming the failed checks of a broken agent', async () => {
    const run = capture(directory);
    const code = await runCommand([broken.url, '--json'], run.io);
    expect(code).toBe(1);
    const report = JSON.parse(run.stdout()) as { passed: boolean; checks: { id: string; level: string; outcome: string }[] };
    expect(report.passed).toBe(false);
    expect(report.checks.filter((check) => check.outcome === 'fail' && check.level === 'MUST').map((check) => check.id)).toContain('envelope_shape');
  });

  it('says, under each failed check, what was sent, what came back and what was expected', async () => {
    const run = capture(directory);
    expect(await runCommand([broken.url], run.io)).toBe(1);
    const out = run.stdout();
    const at = out.indexOf('FAIL  MUST    envelope_shape');
    expect(at, out).toBeGreaterThanOrEqual(0);
    const [, sent, received, expected] = out.slice(at).split('\n');
    expect(sent).toMatch(new RegExp(`^ +sent: +POST ${broken.url.replace(/[.:/]/g, '\\$&')} \\{"task_id":"check_[^"]+","message":"conformance check"`));
    expect(received).toMatch(/^ +received: +HTTP 200 application\/json(; charset=utf-8)? \{"status":"ok"\}$/);
    expect(out).toContain(`envelope_shape               the reply body is not a valid reply: /status must be one of "completed", "failed", "input_required" (got "ok")`);
    expect(expected).toMatch(/^ +expected: +a reply envelope \{"status": "completed" \| "failed" \| "input_required"/);
    // The oversized request says what it was, briefly, and what would have passed.
    const large = out.slice(out.indexOf('FAIL  SHOULD  large_request')).split('\n').slice(0, 4);
    expect(large[0]).toMatch(/a 512 KiB request: HTTP 200 in \d+ ms: the reply body is not a valid reply/);
    expect(large[1]).toMatch(/"message":"xxxxxxxxxxxxxxxxxxxx…\(524288 chars\)"/);
    expect(large[3]).toMatch(/expected: +HTTP 413, or a reply envelope/);
    // Passing checks stay one line.
    expect(out).not.toMatch(/^PASS .*\n +sent:/m);
  });

  it('exits 2 on usage mistakes and 1 on an unknown agent id, naming the known ones', async () => {
    for (const args of [[], ['a', 'b'], ['--bogus', 'x'], [agents.urls.hotel, '--timeout-ms', '-1'], [agents.urls.hotel, '--inputs', '[1]']]) {
      const run = capture(directory);
      expect(await runCommand(args, run.io), args.join(' ')).toBe(2);
      expect(run.stderr()).toMatch(/switchboard check-agent: /);
    }
    const run = capture(directory);
    expect(await runCommand(['nobody_agent', '--config', 'agents.yaml'], run.io)).toBe(1);
    expect(run.stderr()).toMatch(/switchboard check-agent: /);
    expect(run.stderr()).toContain('agents: hotel_agent, limo_agent, flight_agent, weather_agent');
  });
});

describe('switchboard check-agent on A2A agents', () => {
  let exchange: DemoA2aAgent;
  let directory: string;
  beforeAll(async () => {
    exchange = await startDemoA2aAgent({ port: 0 });
    directory = mkdtempSync(join(tmpdir(), 'check-a2a-'));
    const config = readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8').replace('http://127.0.0.1:${DEMO_EXCHANGE_PORT:-7105}/.well-known/agent-card.json', exchange.cardUrl);
    writeFileSync(join(directory, 'agents.yaml'), config);
  });
  afterAll(async () => {
    await exchange.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('runs the A2A checks on an agent registered by a2a_card, asking it for its key without it', async () => {
    const run = capture(directory);
    const code = await runCommand(['exchange_agent', '--config', 'agents.yaml', '--json'], run.io);
    const report = JSON.parse(run.stdout()) as { passed: boolean; target: { protocol: string }; checks: { id: string; outcome: string }[] };
    expect(code, run.stdout() + run.stderr()).toBe(0);
    expect(report.target.protocol).toBe('a2a');
    expect(Object.fromEntries(report.checks.map((check) => [check.id, check.outcome]))).toEqual({
      agent_card: 'pass',
      transport: 'pass',
      task_outcome: 'pass',
      streaming: 'pass',
      input_required: 'pass',
    });
  });

  it('finds the Agent Card under a bare base url', async () => {
    const run = capture(directory);
    const code = await runCommand([exchange.url], run.io);
    expect(code, run.stdout()).toBe(0);
    expect(run.stdout()).toMatch(/PASS {2}MUST {4}agent_card/);
  });

  it('fails the card check, exit 1, where no A2A agent answers', async () => {
    const url = exchange.url;
    const gone = await startDemoA2aAgent({ port: 0 });
    await gone.close();
    const run = capture(directory);
    const code = await runCommand([`${gone.url}/.well-known/agent-card.json`], run.io);
    expect(url).not.toBe(gone.url);
    expect(code).toBe(1);
    expect(run.stdout()).toMatch(/FAIL {2}MUST {4}agent_card/);
  });
});
