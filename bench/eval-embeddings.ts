/**
 * `switchboard eval` on the three sample sets and a 150-agent synthetic
 * registry with `EMBEDDINGS_BASE_URL` pointing at the fake concept-space
 * endpoint of the tests (`test/support/fake-embeddings.ts`): the eval then
 * prints its figures without the endpoint and with it. The fake is a test double of an
 * embeddings service, not a model: these figures show that the path works
 * and what it costs, not how good any real model would be.
 *
 * Run: `npx tsx bench/eval-embeddings.ts` (the eval's own output is printed
 * as it comes: the recogniser beside the nearest-example and linear n-gram
 * baselines, and with the endpoint set, the figures with and without it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeEmbeddings } from '../test/support/fake-embeddings.js';

const SETS = [
  { name: 'travel', eval: 'examples/travel/eval.jsonl', config: 'agents_config.yaml' },
  { name: 'e-commerce', eval: 'examples/ecommerce/eval.jsonl', config: 'examples/ecommerce/agents_config.yaml' },
  { name: 'assistant', eval: 'examples/assistant/eval.jsonl', config: 'examples/assistant/agents_config.yaml' },
];

/** Runs a script of the repo with tsx; asynchronous, so the fake endpoint in this process keeps answering. */
function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { env, stdio: 'inherit' });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

export async function main(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-eval-embeddings-'));
  const fake = await startFakeEmbeddings();
  let ok = true;
  try {
    const synthetic = join(dir, 'synthetic-150');
    if ((await run('bench/synthetic-registry.ts', ['--agents', '150', '--seed', '7', '--out', synthetic])) !== 0) return false;
    const sets = [...SETS, { name: 'synthetic, 150 agents (seed 7)', eval: join(synthetic, 'eval.jsonl'), config: join(synthetic, 'agents_config.yaml') }];
    for (const set of sets) {
      // With the endpoint set, the eval prints its figures without it first, then with it.
      const offline = { ...process.env, EMBEDDINGS_BASE_URL: '', EMBEDDINGS_MODEL: '', LLM_BASE_URL: '', LLM_MODEL: '' };
      console.log(`\n== ${set.name}: without embeddings, then with the fake endpoint (a test double, not a model)`);
      ok = (await run('src/cli/main.ts', ['eval', set.eval, '--config', set.config], { ...offline, EMBEDDINGS_BASE_URL: fake.baseUrl, EMBEDDINGS_MODEL: 'concepts', EMBEDDINGS_API_KEY: 'fake' })) === 0 && ok;
    }
    console.log(`\nembeddings requests answered by the fake: ${fake.requests.length}`);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return ok;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = (await main()) ? 0 : 1;
}
