/**
 * docs/api.md#commands: the `switchboard` bin as installed (`bin/switchboard.js`)
 * answers `--version` with the package version and `--help` with every
 * command; each command's `--help` gives its usage and the environment
 * variables it reads, and exits 0 without doing the command's work.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, childEnv, runCommand, type CommandResult } from './harness.js';

// Each case starts a Node process that compiles TypeScript on the fly; a loaded machine needs time.
vi.setConfig({ testTimeout: 60_000 });

/** Runs `switchboard ARGS` through its bin script. */
function switchboard(...args: string[]): Promise<CommandResult> {
  return runCommand(process.execPath, [join(REPO_ROOT, 'bin/switchboard.js'), ...args], childEnv({ LOG_LEVEL: 'silent' }));
}

const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

/** Each command with variables its `--help` must name (the ones it reads of those docs/deploy.md#environment lists). */
const COMMANDS: Record<string, string[]> = {
  serve: ['SWITCHBOARD_CONFIG', 'PORT', 'HOST', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL', 'SWITCHBOARD_API_KEYS', 'LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL', 'LLM_SMALL_MODEL'],
  validate: ['${NAME}'],
  'check-agent': ['SWITCHBOARD_CONFIG'],
  eval: ['SWITCHBOARD_CONFIG', 'LLM_BASE_URL', 'LLM_MODEL'],
  replay: ['SWITCHBOARD_CONFIG', 'DATABASE_URL', 'LLM_BASE_URL', 'LLM_MODEL'],
  review: ['SWITCHBOARD_CONFIG', 'DATABASE_URL'],
  demo: ['PORT', 'DATABASE_URL', 'LOG_LEVEL'],
};

describe.concurrent('switchboard --version and --help', () => {
  it('--version prints the package version and exits 0', async () => {
    const result = await switchboard('--version');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(`switchboard ${version}`);
  });

  it('--help lists every command on stdout and exits 0', async () => {
    const result = await switchboard('--help');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Usage: switchboard <command>/);
    for (const name of Object.keys(COMMANDS)) expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    expect(result.stdout).toContain('--version');
  });

  it('no command prints the usage on stderr and exits 2; an unknown one says which', async () => {
    const none = await switchboard();
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage: switchboard <command>');
    const unknown = await switchboard('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  for (const [name, variables] of Object.entries(COMMANDS)) {
    it(`${name} --help gives its usage and the environment it reads, and exits 0`, async () => {
      const result = await switchboard(name, '--help');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: switchboard ${name}\\b`));
      const environment = result.stdout.slice(result.stdout.indexOf('\nEnvironment:\n'));
      expect(result.stdout).toContain('\nEnvironment:\n');
      for (const variable of variables) expect(environment).toContain(variable);
      // Help only: a server would have logged or listened, a check would have reported.
      expect(result.stderr).toBe('');
    });
  }
});
