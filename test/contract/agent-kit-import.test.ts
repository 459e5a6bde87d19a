/**
 * How a sub-agent project imports `switchboard/agent-kit`, exactly as
 * docs/onboard-an-agent.md says: the kit ships as TypeScript source, so it
 * loads through a TS-aware loader (`node --import tsx`, or `npx tsx`) and a
 * plain `node` refuses it. The project here is a temporary folder whose
 * node_modules link to this checkout, as after installing it as a dependency.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, REPO_ROOT } from './harness.js';

function node(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: childEnv({}), timeout: 45_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('importing switchboard/agent-kit from another project', () => {
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'sb-kit-user-'));
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(REPO_ROOT, join(project, 'node_modules', 'switchboard'), 'dir');
    symlinkSync(join(REPO_ROOT, 'node_modules', 'tsx'), join(project, 'node_modules', 'tsx'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', type: 'module', private: true }));
    writeFileSync(
      join(project, 'my-agent.mjs'),
      "import { createAgentServer, AGENT_REPLY_SCHEMA } from 'switchboard/agent-kit';\nconsole.log(typeof createAgentServer, AGENT_REPLY_SCHEMA.type);\n",
    );
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('loads with node --import tsx, as the guide shows', async () => {
    const run = await node(['--import', 'tsx', 'my-agent.mjs'], project);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('function object');
  });

  it('is refused by plain node (TypeScript source, no compiled build), as the guide warns', async () => {
    const run = await node(['my-agent.mjs'], project);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('ERR_UNKNOWN_FILE_EXTENSION');
  });
});
