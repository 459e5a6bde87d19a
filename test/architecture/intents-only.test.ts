/**
 * The recogniser returns intents only: the plan a model drafts in the same call
 * goes on as data and planning reads it (`planning/draft-reader.ts`), so no
 * production file of `src/intent/` names a draft type.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DRAFT_TYPES = /\b(?:DraftPlanEnvelope|DraftTaskPlan|DraftSubTask|DraftSource)\b/;

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : Promise.resolve([join(dir, entry.name)]))));
  return nested.flat().filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'));
}

describe('the recogniser returns intents only', () => {
  it('names no draft type in src/intent/', async () => {
    const naming: string[] = [];
    for (const file of await files(join(ROOT, 'src/intent'))) if (DRAFT_TYPES.test(await readFile(file, 'utf8'))) naming.push(relative(ROOT, file));
    expect(naming).toEqual([]);
  });
});
