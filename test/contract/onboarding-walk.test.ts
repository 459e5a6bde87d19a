/**
 * docs/onboard-an-agent.md walked end to end, as a sub-agent developer would,
 * from a clean temporary directory: the kit is packed (`npm pack` compiles it),
 * the tarball is installed there offline (the kit has no dependencies, so no
 * registry is needed) in seconds, the guide's own agent code is written out and
 * run with plain `node`, and `npx switchboard check-agent` (the guide's own
 * command) finds it conforming.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, freePort, REPO_ROOT } from './harness.js';

const GUIDE = readFileSync(join(REPO_ROOT, 'docs/onboard-an-agent.md'), 'utf8');
const KIT = join(REPO_ROOT, 'packages/agent-kit');

/** Runs a command to its end. */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: childEnv({ npm_config_update_notifier: 'false', npm_config_fund: 'false' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

/** The fenced block of the guide that follows a line containing `marker`. */
function block(marker: string): string {
  const at = GUIDE.indexOf(marker);
  expect(at, marker).toBeGreaterThanOrEqual(0);
  const open = GUIDE.lastIndexOf('```', at);
  const close = GUIDE.indexOf('```', at);
  return GUIDE.slice(GUIDE.indexOf('\n', open) + 1, close);
}

describe('onboarding a sub-agent with the packed kit, as the guide says', () => {
  let project: string;
  let packs: string;
  let agent: ChildProcess | undefined;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'sb-onboard-'));
    packs = mkdtempSync(join(tmpdir(), 'sb-kit-pack-'));
  });
  afterAll(() => {
    agent?.kill();
    rmSync(project, { recursive: true, force: true });
    rmSync(packs, { recursive: true, force: true });
  });

  it('packs, installs offline in seconds, runs on plain node and passes check-agent', async () => {
    const packed = await run('npm', ['pack', '--pack-destination', packs], KIT);
    expect(packed.code, packed.out).toBe(0);
    const tarball = readdirSync(packs).find((name) => name.endsWith('.tgz'))!;
    expect(tarball).toBe('switchboard-agent-kit-0.1.0.tgz');
    const listed = await run('tar', ['-tzf', join(packs, tarball)], packs);
    const files = listed.out.trim().split('\n').sort();
    // Compiled JavaScript with declarations, the manifest and the readme: no sources, tests or benches.
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/bin.js');
    expect(files.filter((file) => !/^package\/(dist\/.*\.(js|d\.ts)|package\.json|README\.md)$/.test(file))).toEqual([]);

    // The guide's project set-up, with the tarball it tells you to pack.
    const setup = block('npm init -y')
      .split('\n')
      .filter((line) => line.trim() && !line.trim().startsWith('#'))
      .map((line) => line.replace('/path/to/switchboard-agent-kit-0.1.0.tgz', join(packs, tarball)));
    expect(setup.some((line) => line.includes('--offline'))).toBe(true);
    let installMs = 0;
    for (const part of setup.flatMap((line) => line.split('&&'))) {
      const [command, ...args] = part.trim().split(/\s+/);
      const step = await run(command!, args, project);
      expect(step.code, `${part}\n${step.out}`).toBe(0);
      if (args[0] === 'install') installMs = step.ms;
    }
    expect(installMs).toBeLessThan(20_000);
    expect(readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@switchboard']);

    // The guide's agent, run with plain node.
    writeFileSync(join(project, 'my-agent.mjs'), block('// my-agent.mjs'));
    const port = await freePort();
    agent = spawn(process.execPath, ['my-agent.mjs'], { cwd: project, env: childEnv({ PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
    let agentOutput = '';
    agent.stderr!.on('data', (chunk: Buffer) => (agentOutput += chunk.toString('utf8')));
    for (let tries = 0; ; tries += 1) {
      const alive = await fetch(`http://127.0.0.1:${port}/healthz`).then((response) => response.ok, () => false);
      if (alive) break;
      expect(tries, agentOutput).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // The guide's check, with npx from the agent's project.
    const command = block('npx switchboard check-agent').trim().replace('7201', String(port));
    const args = [...command.matchAll(/'[^']*'|\S+/g)].map((match) => match[0].replace(/^'|'$/g, ''));
    expect(args.slice(0, 3)).toEqual(['npx', 'switchboard', 'check-agent']);
    const check = await run('npx', ['--no-install', ...args.slice(1)], project);
    expect(check.code, check.out).toBe(0);
    expect(check.out).toMatch(/PASS {2}MUST {4}envelope_shape/);
    expect(check.out).toMatch(/PASS {2}MUST {4}idempotent_retry/);
    expect(check.out).toContain('conforms (http-json)');

    // A broken agent fails the same command.
    agent.kill();
    const down = await run('npx', ['--no-install', 'switchboard', 'check-agent', `http://127.0.0.1:${port}/invoke`], project);
    expect(down.code, down.out).toBe(1);
    expect(down.out).toMatch(/FAIL {2}MUST {4}http_status/);
  }, 240_000);
});
