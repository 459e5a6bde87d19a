import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI entry point in a child process from the project root. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('switchboard validate', () => {
  it('exits 0 with one OK line for the root sample registry', async () => {
    const run = await runCli(['validate', 'agents_config.yaml']);
    expect(run.code).toBe(0);
    // The exchange agent is registered by its Agent Card, which validate does not fetch: registered, not routable.
    expect(run.stdout).toMatch(/^OK agents_config\.yaml: 5 agents \(4 enabled\), version [0-9a-f]{12}\n$/);
    expect(run.stderr).toBe('');
  });

  it('exits 0 for the e-commerce sample and counts enabled agents', async () => {
    const [ecommerce, minimal] = await Promise.all([
      runCli(['validate', 'examples/ecommerce/agents_config.yaml']),
      runCli(['validate', 'test/fixtures/configs/minimal-valid.yaml']),
    ]);
    expect(ecommerce.code).toBe(0);
    expect(ecommerce.stdout).toContain('5 agents (5 enabled)');
    expect(minimal.code).toBe(0);
    expect(minimal.stdout).toContain('2 agents (1 enabled)');
  });

  it('prints every problem as file:line:col  pointer  message and exits 1', async () => {
    const file = 'test/fixtures/configs/broken-several.yaml';
    const run = await runCli(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      `${file}:3:3  /supervisor/max_paralel  unknown property "max_paralel" (did you mean "max_parallel"?)`,
      `${file}:5:9  /agents/0/id  "id" "Echo-Agent" does not match ^[a-z0-9_]+$`,
      `${file}:8:18  /agents/0/depends_on/0  "Echo-Agent" depends on unknown agent "nobody" (known: Echo-Agent)`,
      `${file}:11:17  /agents/0/endpoint/protocol  "protocol" must be one of "http-json", "http-sse", "a2a", got "grpc"`,
      `${file}:12:19  /agents/0/endpoint/timeout_ms  "timeout_ms" must be >= 1, got -1`,
      `${file}:16:29  /agents/0/required_semantic_keys/0/extract/pattern  invalid regular expression: /(unclosed/: Unterminated group`,
      `${file}: 6 problems; the registry is invalid`,
    ]);
  });

  it('prints deprecation warnings on stderr but still exits 0', async () => {
    const file = 'test/fixtures/configs/seed-widget-alias.yaml';
    const run = await runCli(['validate', file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`${file}:8:5  /agents/0/fe_wigdets_suggestion  warning: \`fe_wigdets_suggestion\` is deprecated`);
    expect(run.stdout).toContain('OK');
  });

  it('names a missing environment variable and never prints its value once set', async () => {
    const file = 'test/fixtures/configs/needs-env.yaml';
    const missing = await runCli(['validate', file]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${file}:9:24  /agents/0/endpoint/headers/Authorization  environment variable SECURE_AGENT_TOKEN is not set`);
    const present = await runCli(['validate', file], { SECURE_AGENT_TOKEN: 'tok-123-secret' });
    expect(present.code).toBe(0);
    expect(present.stdout + present.stderr).not.toContain('tok-123-secret');
  });

  it('reports a missing file clearly and exits 1', async () => {
    const run = await runCli(['validate', 'no/such/agents_config.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('switchboard validate: registry file not found: no/such/agents_config.yaml\n');
  });

  it('exits 2 with usage when FILE is missing', async () => {
    const run = await runCli(['validate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('missing FILE');
    expect(run.stderr).toContain('Usage: switchboard validate FILE');
  });
});

describe('switchboard dispatcher', () => {
  it('prints usage with the command table for --help and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: switchboard <command>');
    expect(run.stdout).toMatch(/^ {2}validate FILE\s+check a registry file/m);
  });

  it('exits 2 with usage for an unknown command', async () => {
    const run = await runCli(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "frobnicate"');
    expect(run.stderr).toContain('Commands:');
  });

  it('exits 2 with usage when no command is given', async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Usage: switchboard <command>');
  });
});
