/**
 * `switchboard check-agent` through the real CLI (CONTRACT §6 v2): exit 0 on a
 * conforming agent, 1 naming the failed MUST checks, 2 on a usage mistake.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { childEnv, runCommand, type CommandResult } from './harness.js';

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

  it('exits 2 without an argument', async () => {
    const run = await cli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing <url|agent id>');
  });
});
