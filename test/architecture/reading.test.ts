import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NORMALISING_FILES, readingBreaches } from './reading-rule.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the message is read once (test/architecture/reading-rule.ts)', () => {
  it('holds for src/: no re-reading of the message, no normal form outside the reading but the listed files', async () => {
    expect(await readingBreaches(ROOT)).toEqual([]);
  });

  it('lists only files that exist and still take a normal form (the list only shrinks)', async () => {
    const { readFile } = await import('node:fs/promises');
    const stale: string[] = [];
    for (const path of Object.keys(NORMALISING_FILES)) {
      const text = await readFile(join(ROOT, path), 'utf8').catch(() => '');
      if (!/\.normalize\(|\bnormalizeText\(/.test(text)) stale.push(path);
    }
    expect(stale).toEqual([]);
  });

  it('fails on a node that re-normalises the query, and on one that splits its clauses or classifies its reply word again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-reading-'));
    try {
      await mkdir(join(dir, 'src/graph/nodes'), { recursive: true });
      await mkdir(join(dir, 'src/understanding'), { recursive: true });
      await mkdir(join(dir, 'src/turn'), { recursive: true });
      await writeFile(join(dir, 'src/understanding/index.ts'), 'export const splitClauses = (text: string) => [text];\n');
      await writeFile(join(dir, 'src/graph/nodes/plan-node.ts'), "export const planText = (state: { query: string }) => state.query.normalize('NFKC').trim();\n");
      await writeFile(
        join(dir, 'src/graph/nodes/control-node.ts'),
        "import { classifyReplyWord, splitClauses, type QueryReading } from '../../understanding/index.js';\nexport const again = (query: string, reading: QueryReading) => [splitClauses(query), classifyReplyWord(query), reading];\n",
      );
      await writeFile(join(dir, 'src/turn/run-turn.ts'), "import { readMessage } from '../understanding/index.js';\nexport const read = (query: string) => readMessage(query);\n");
      expect(await readingBreaches(dir)).toEqual([
        'normal-form-in-the-reading: src/graph/nodes/plan-node.ts:1: takes a normal form outside src/understanding/',
        'reading-made-once: src/graph/nodes/control-node.ts: imports classifyReplyWord',
        'reading-made-once: src/graph/nodes/control-node.ts: imports splitClauses',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
