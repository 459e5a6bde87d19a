/**
 * `switchboard check-agent` through the real CLI (docs/api.md#commands): exit 0 on a
 * conforming agent, 1 naming the failed MUST checks (an unreachable URL and an
 * unknown agent id included: nothing could pass), 2 on a usage mistake.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { childEnv, freePort, runCommand, type CommandResult } from './harness.js';

function cli(args: string[]): Promise<CommandResult> {
  return runCommand(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'check-agent', ...args], childEnv({ LOG_LEVEL: 'silent' }));
}

describe('check-agent', () => {
  const agents: FakeAgent[] = [];
  afterAll(() => Promise.all(agents.map((agent) => agent.close())));

  it('exits 0 on a conforming agent and 1 naming the failed checks of a broken one', async () => {
    const good = await startFakeAgent(jsonReply({ output: { appointment_no: 'A-1' }, message: 'ok' }));
    const broken = await startFakeAgent(sseReply({ progress: ['working'], result: { status: 'finished' } }));
    agents.push(good, broken);
    const [passed, failed] = await Promise.all([cli([good.url]), cli([broken.url, '--json'])]);
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(/^PASS {2}MUST {4}envelope_shape/m);
    expect(good.calls.length).toBeGreaterThan(0);
    expect(failed.code).toBe(1);
    const report = JSON.parse(failed.stdout) as { checks: { id: string; level: string; outcome: string }[] };
    expect(report.checks.filter((check) => check.level === 'MUST' && check.outcome === 'fail').map((check) => check.id)).toContain('envelope_shape');
  });

  it('exits 1 on a refused connection: http_status fails, the checks that need a reply are skipped, none passes', async () => {
    const url = `http://127.0.0.1:${await freePort()}/invoke`;
    const run = await cli([url]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^FAIL {2}MUST {4}http_status +the agent is unreachable: ECONNREFUSED/m);
    expect(run.stdout).toMatch(/^SKIP {2}MUST {4}timeout /m);
    expect(run.stdout).toMatch(/^SKIP {2}MUST {4}reply_size /m);
    expect(run.stdout).not.toMatch(/^PASS/m);
    expect(run.stdout).toContain(`${url} does not conform (http-json): failed http_status`);
  });

  it('exits 1 naming the agents of the file when the agent id is unknown', async () => {
    const run = await cli(['no_such_agent', '--config', 'agents_config.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot check "no_such_agent": no such agent in agents_config.yaml (agents: hotel_agent');
  });

  it('exits 2 without an argument, and the help says what each exit code means', async () => {
    const run = await cli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing <url|agent id>');
    expect(run.stderr).toMatch(/Exit codes:\n {2}0 {2}every MUST check passed\n {2}1 {2}a MUST check failed, or the agent could not be checked: an unknown agent\n/);
    expect(run.stderr).toMatch(/ {2}2 {2}usage mistake: no <url\|agent id>/);
  });
});
