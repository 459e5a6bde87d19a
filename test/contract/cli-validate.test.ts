/**
 * docs/api.md#commands `switchboard validate F` run from a checkout, as
 * `npm run cli -- validate F` runs it (node with tsx on src/cli/main.ts; the
 * README's own `npm run cli -- validate` command runs through npm in
 * test/contract/docs-walk.test.ts): exit 0 for a good file, and for a bad one
 * exit 1 with every problem on its own `file:line:col` line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CLINIC_TOKEN, clinicRegistry } from './clinic-registry.js';
import { childEnv, runCommand, type CommandResult } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'sb-contract-validate-'));
const URLS = {
  appointment: 'http://127.0.0.1:9/a',
  report: 'http://127.0.0.1:9/b',
  billing: 'http://127.0.0.1:9/c',
  triage: 'http://127.0.0.1:9/d',
  pharmacy: 'http://127.0.0.1:9/e',
};

// Several CLI processes run at once here; on a loaded machine each may take seconds to start.
vi.setConfig({ testTimeout: 60_000 });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileWith(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** What `npm run cli -- validate F` runs (package.json "cli"), without npm's own start-up. */
function validate(path: string, env: Record<string, string> = { CLINIC_TOKEN }): Promise<CommandResult> {
  return runCommand(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'validate', path], childEnv(env));
}

/** 1-based line of the first line containing `needle`. */
function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(needle));
  expect(index, needle).toBeGreaterThanOrEqual(0);
  return index + 1;
}

describe.concurrent('validate', () => {
  it('exit 0 for a valid registry', async () => {
    const result = await validate(fileWith('good.yaml', clinicRegistry(URLS)));
    expect(result.code, result.all).toBe(0);
    expect(result.all).not.toContain(CLINIC_TOKEN);
  });

  it('exit 1 listing every problem with file:line:col on the right lines', async () => {
    const text = clinicRegistry(URLS)
      .replace('      protocol: http-sse', '      protocol: grpc')
      .replace('  - id: triage_agent', '  - id: Triage-Agent')
      .replace('      timeout_ms: 800\n      retries: 0\n    required_semantic_keys:\n      - key: email', '      timeout_ms: -5\n      retries: 0\n    required_semantic_keys:\n      - key: email')
      .replace('depends_on: [appointment_agent]', 'depends_on: [nobody_agent]')
      .replace('RPT-\\\\d{6}', '(unclosed');
    const path = fileWith('bad.yaml', text);
    const result = await validate(path);
    expect(result.code, result.all).toBe(1);
    const positions = [...result.all.matchAll(/bad\.yaml:(\d+):(\d+)/g)].map((match) => Number(match[1]));
    expect(positions).toContain(lineOf(text, 'protocol: grpc'));
    expect(positions).toContain(lineOf(text, 'Triage-Agent'));
    expect(positions).toContain(lineOf(text, 'timeout_ms: -5'));
    expect(positions).toContain(lineOf(text, 'nobody_agent'));
    expect(positions).toContain(lineOf(text, '(unclosed'));
    // Each problem line starts with the file path as given.
    for (const line of result.all.split('\n').filter((entry) => /bad\.yaml:\d+:\d+/.test(entry))) expect(line.startsWith(path)).toBe(true);
  });

  it('exit 1 with a position for a YAML syntax error', async () => {
    const text = 'version: 1\nagents:\n  - id: a\n    name: [unclosed\n    description: x\n';
    const result = await validate(fileWith('syntax.yaml', text));
    expect(result.code, result.all).toBe(1);
    expect(result.all).toMatch(/syntax\.yaml:\d+:\d+/);
  });

  it('exit 1 (not a crash) for a missing file, and the message names it', async () => {
    const result = await validate(join(dir, 'does-not-exist.yaml'));
    expect(result.code).toBe(1);
    expect(result.all).toContain('does-not-exist.yaml');
    expect(result.all).not.toMatch(/\n\s+at /);
  });

  it('a ${VAR} that is not set is reported, not printed as a secret', async () => {
    const result = await validate(fileWith('env.yaml', clinicRegistry(URLS)), {});
    // Either accepted (resolved later) or reported with a position; never a crash.
    expect([0, 1]).toContain(result.code);
    if (result.code === 1) expect(result.all).toMatch(/env\.yaml:\d+:\d+.*CLINIC_TOKEN/);
  });
});

describe.concurrent('serve refuses to start on bad settings, with a clear message', () => {
  function serve(args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
    return runCommand(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', ...args], childEnv({ LOG_LEVEL: 'silent', CLINIC_TOKEN, DATABASE_URL: `sqlite:${join(dir, 'serve.db')}`, ...env }));
  }

  it('a missing registry file', async () => {
    const result = await serve(['--config', join(dir, 'missing.yaml'), '--port', '0']);
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.all).toContain('missing.yaml');
    expect(result.all).not.toMatch(/\n\s+at /);
  });

  it('a broken registry file: every problem positioned', async () => {
    const text = clinicRegistry(URLS).replace('      protocol: http-sse', '      protocol: grpc');
    const path = fileWith('serve-bad.yaml', text);
    const result = await serve(['--config', path, '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.all).toContain(`serve-bad.yaml:${lineOf(text, 'protocol: grpc')}:`);
  });

  it('a bad port', async () => {
    const result = await serve(['--config', fileWith('ok.yaml', clinicRegistry(URLS)), '--port', 'eighty']);
    expect(result.code).not.toBe(0);
    expect(result.all).toContain('eighty');
  });

  it('an unsupported DATABASE_URL does not print its password', async () => {
    const result = await serve(['--config', fileWith('ok2.yaml', clinicRegistry(URLS)), '--port', '0'], { DATABASE_URL: 'mysql://admin:hunter2-pw@db.internal/x' });
    expect(result.code).not.toBe(0);
    expect(result.all).toContain('DATABASE_URL');
    expect(result.all).not.toContain('hunter2-pw');
  });
});

describe('serve exits when its port is taken', () => {
  it('exit 1 naming the problem, instead of hanging', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', () => resolve()));
    const { port } = blocker.address() as AddressInfo;
    try {
      const result = await runCommand(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--config', fileWith('ok3.yaml', clinicRegistry(URLS)), '--port', String(port)],
        childEnv({ LOG_LEVEL: 'silent', CLINIC_TOKEN, DATABASE_URL: `sqlite:${join(dir, 'port.db')}` }),
      );
      expect(result.code).toBe(1);
      expect(result.all).toMatch(/EADDRINUSE|in use/);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});

describe('seed compatibility', () => {
  it('fe_wigdets_suggestion is accepted as an alias of widgets, with a deprecation warning', async () => {
    const text = clinicRegistry(URLS).replace('widgets:\n  department:', 'fe_wigdets_suggestion:\n  department:');
    expect(text).toContain('fe_wigdets_suggestion:');
    const result = await validate(fileWith('alias.yaml', text));
    expect(result.code, result.all).toBe(0);
    expect(result.all).toMatch(/deprecat|warning/i);
  });
});

