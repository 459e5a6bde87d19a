/**
 * How another project imports the agent kit once it is installed: `switchboard/agent-kit`
 * from the `switchboard` package and `@switchboard/agent-kit` from the kit's own package
 * both point their "exports" at compiled JavaScript with type declarations, so plain
 * `node` loads them (no TypeScript loader). The packages are the ones `npm run build`
 * writes (test/support/built-package.ts), installed by linking them into a temporary
 * project's node_modules.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { builtPackage, type BuiltPackage } from '../support/built-package.js';
import { childEnv } from './harness.js';

// The first test file to ask builds the package (tens of seconds; minutes on a loaded machine).
vi.setConfig({ hookTimeout: 600_000 });

function node(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: childEnv({}), timeout: 45_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

type ExportTarget = { types: string; default?: string; import?: string };

function exportsOf(packageFolder: string, subpath: string): ExportTarget {
  const manifest = JSON.parse(readFileSync(join(packageFolder, 'package.json'), 'utf8')) as { exports: Record<string, ExportTarget> };
  return manifest.exports[subpath]!;
}

describe('importing the agent kit from another project', () => {
  let built: BuiltPackage;
  let project: string;
  beforeAll(async () => {
    built = await builtPackage();
    project = mkdtempSync(join(tmpdir(), 'sb-kit-user-'));
    mkdirSync(join(project, 'node_modules/@switchboard'), { recursive: true });
    symlinkSync(built.root, join(project, 'node_modules', 'switchboard'), 'dir');
    symlinkSync(built.kit, join(project, 'node_modules/@switchboard/agent-kit'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', type: 'module', private: true }));
  });
  afterAll(() => project && rmSync(project, { recursive: true, force: true }));

  it('switchboard/agent-kit loads with plain node and ships its types', async () => {
    writeFileSync(
      join(project, 'server-kit.mjs'),
      "import { createAgentServer, createEnvelopeValidator, AGENT_REPLY_SCHEMA } from 'switchboard/agent-kit';\nconsole.log(typeof createAgentServer, typeof createEnvelopeValidator, AGENT_REPLY_SCHEMA.type);\n",
    );
    const run = await node(['server-kit.mjs'], project);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('function function object');
    const target = exportsOf(built.root, './agent-kit');
    expect(target.types).toMatch(/\.d\.ts$/);
    expect(existsSync(join(built.root, target.types))).toBe(true);
  });

  it('@switchboard/agent-kit (the kit package) loads with plain node and ships its types', async () => {
    writeFileSync(join(project, 'kit.mjs'), "import { createAgentServer } from '@switchboard/agent-kit';\nconsole.log(typeof createAgentServer);\n");
    const run = await node(['kit.mjs'], project);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('function');
    expect(existsSync(join(built.kit, exportsOf(built.kit, '.').types))).toBe(true);
  });
});
