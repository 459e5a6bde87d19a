import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { findOwnedNameBreaches } from './owned-names.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const { TIERS, BASE_FILES, OWNED_NAMES } = createRequire(import.meta.url)(CONFIG) as {
  TIERS: { tier: number; name: string; rooms: string[] }[];
  BASE_FILES: string[];
  OWNED_NAMES: Record<string, string>;
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Runs dependency-cruiser with the repo's config over `src` of `cwd`; returns the rule breaches it found. */
async function cruise(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile);
  const args = [CRUISER, 'src', '--config', CONFIG, '--output-type', 'json'];
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string }) => {
    if (typeof error.stdout === 'string' && error.stdout.startsWith('{')) return { stdout: error.stdout };
    throw error;
  });
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('layering of src/', () => {
  it('has no import against the written layering, no cycle, no test code in production', async () => {
    const violations = await cruise(ROOT);
    expect(violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`)).toEqual([]);
  }, 120_000);

  it('imports and declares the names one room owns (the outgoing event type) from that room only', async () => {
    expect(await findOwnedNameBreaches(ROOT, OWNED_NAMES)).toEqual([]);
  });

  it('gives every folder and root file of src/ a room on a tier', async () => {
    const rooms = new Set(TIERS.flatMap((tier) => tier.rooms));
    const entries = await readdir(join(ROOT, 'src'), { withFileTypes: true });
    const unplaced = entries
      .filter((entry) => (entry.isDirectory() ? !rooms.has(entry.name) : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !rooms.has(entry.name) && !BASE_FILES.includes(entry.name)))
      .map((entry) => entry.name);
    expect(unplaced).toEqual([]);
  });

  it('is the layering docs/architecture.md writes down', async () => {
    const text = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
    // Rows of the layering table, top tier first: | tier | `room`, `room` | what they hold |
    const written = [...text.matchAll(/^\|\s*(\d+)\s*\|([^|]+)\|/gm)].map((row) => ({
      tier: Number(row[1]),
      rooms: [...row[2]!.matchAll(/`([^`]+)`/g)].map((room) => room[1]!.replace(/^src\//, '').replace(/\/$/, '')).sort(),
    }));
    written.sort((a, b) => a.tier - b.tier);
    const enforced = TIERS.map((tier) => ({ tier: tier.tier, rooms: tier.rooms.map((room) => (room === 'base' ? BASE_FILES : [room])).flat().sort() }));
    expect(written).toEqual(enforced);
  });

  it('fails on an import up the tiers, a cycle between rooms, and a driver outside its room', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-layering-'));
    try {
      await mkdir(join(dir, 'src/text'), { recursive: true });
      await mkdir(join(dir, 'src/graph'), { recursive: true });
      await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' }, include: ['src'] }));
      await writeFile(join(dir, 'src/text/words.ts'), "import { node } from '../graph/node.js';\nexport const words = () => node;\n");
      await writeFile(join(dir, 'src/graph/node.ts'), "import { words } from '../text/words.js';\nexport const node = () => words;\n");
      await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      await writeFile(join(dir, 'src/text/drivers.ts'), "import express from 'express';\nimport pg from 'pg';\nexport const drivers = [express, pg];\n");
      const found = (await cruise(dir)).map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);
      expect(found).toContain('layering:text: src/text/words.ts → src/graph/node.ts');
      expect(found.some((line) => line.startsWith('no-circular:'))).toBe(true);
      expect(found).not.toContain('layering:graph: src/graph/node.ts → src/text/words.ts');
      expect(found.some((line) => line.startsWith('express-in-http-only: src/text/drivers.ts'))).toBe(true);
      expect(found.some((line) => line.startsWith('databases-in-store-only: src/text/drivers.ts'))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('fails on ResponseState defined or imported anywhere but src/events/, and on an import past a room\'s index.ts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-layering-'));
    try {
      for (const room of ['events', 'graph', 'turn', 'http']) await mkdir(join(dir, 'src', room), { recursive: true });
      await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' }, include: ['src'] }));
      await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      await writeFile(join(dir, 'src/events/response-state.ts'), 'export interface ResponseState { content: string }\n');
      await writeFile(join(dir, 'src/events/index.ts'), "export type { ResponseState } from './response-state.js';\n");
      // A second definition in the graph, a turn file that imports it, and one that takes the name through another room's index.
      await writeFile(join(dir, 'src/graph/response-state.ts'), 'export interface ResponseState { content: string }\n');
      await writeFile(join(dir, 'src/turn/pipeline.ts'), "import type { ResponseState } from '../graph/response-state.js';\nexport const seen: ResponseState[] = [];\n");
      await writeFile(join(dir, 'src/turn/index.ts'), "export type { ResponseState } from '../events/index.js';\nexport { seen } from './pipeline.js';\n");
      await writeFile(join(dir, 'src/http/route.ts'), "import type { ResponseState } from '../turn/index.js';\nexport const sent: ResponseState[] = [];\n");
      await writeFile(join(dir, 'src/http/fine.ts'), "import type { ResponseState } from '../events/index.js';\nexport const fine: ResponseState[] = [];\n");
      // A deep import into another room, past its index.ts.
      await writeFile(join(dir, 'src/http/deep.ts'), "import type { ResponseState } from '../events/response-state.js';\nexport const deep: ResponseState[] = [];\n");
      const found = (await cruise(dir)).map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);
      expect(found).toContain('response-state-in-events-only: src/turn/pipeline.ts → src/graph/response-state.ts');
      expect(found.filter((line) => line.startsWith('response-state-in-events-only:'))).toHaveLength(1);
      expect(found).toContain('through-index:events: src/http/deep.ts → src/events/response-state.ts');
      expect(found).toContain('through-index:graph: src/turn/pipeline.ts → src/graph/response-state.ts');
      expect(found.filter((line) => line.startsWith('through-index:'))).toHaveLength(2);
      expect(await findOwnedNameBreaches(dir, OWNED_NAMES)).toEqual([
        'src/graph/response-state.ts: ResponseState declared outside src/events/',
        'src/http/route.ts: ResponseState imported from ../turn/index.js, not from src/events/',
        'src/turn/index.ts: ResponseState re-exported outside src/events/',
        'src/turn/pipeline.ts: ResponseState imported from ../graph/response-state.js, not from src/events/',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
