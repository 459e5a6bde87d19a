/**
 * Pre-selection recall at small K, lexical and with word meaning: for each
 * in-scope first-turn line of the three sample eval sets, whether each
 * expected agent is among the K cards the LLM recogniser's pre-selector would
 * show, without and with the query's embedding scores. The endpoint is the
 * fake concept-space `/v1/embeddings` server (test/support/fake-embeddings.ts),
 * started in this process: a test double, not a model; the figures show the
 * path works, not what a real model gains.
 *
 * Run: `npx tsx bench/preselect-recall.ts`
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createEmbeddingsClient } from '../src/embeddings/embeddings-client.js';
import { createSemanticIndex } from '../src/embeddings/semantic-index.js';
import { parseEvalSet } from '../src/eval/eval-set.js';
import { createCardPreselector } from '../src/intent/routing/card-preselect.js';
import { createExampleRanker } from '../src/intent/routing/example-ranker.js';
import { silentLogger } from '../src/logger.js';
import { loadRegistryFile } from '../src/registry/load-registry.js';
import { readTurnQuery } from '../src/understanding/index.js';
import { startFakeEmbeddings } from '../test/support/fake-embeddings.js';

const SETS = [
  ['examples/travel/eval.jsonl', 'agents_config.yaml'],
  ['examples/ecommerce/eval.jsonl', 'examples/ecommerce/agents_config.yaml'],
  ['examples/assistant/eval.jsonl', 'examples/assistant/agents_config.yaml'],
] as const;

export async function main(): Promise<void> {
  const fake = await startFakeEmbeddings();
  try {
    for (const [file, config] of SETS) {
      const loaded = await loadRegistryFile(config, { env: {} });
      if (!loaded.ok) throw new Error(`${config} is invalid`);
      const { snapshot } = loaded;
      const parsed = parseEvalSet(readFileSync(file, 'utf8'), new Set(snapshot.agents.map((card) => card.id)));
      if (!parsed.ok) throw new Error(`${file} is invalid`);
      const semantic = createSemanticIndex({ client: createEmbeddingsClient({ baseUrl: fake.baseUrl, model: 'concepts', logger: silentLogger }) });
      if (!(await semantic.prepare(snapshot))) throw new Error('cards could not be embedded');
      const ranker = createExampleRanker();
      const cases = parsed.cases.filter((item) => item.agents.length > 0 && item.session.length === 0);
      const scores = await Promise.all(cases.map((item) => semantic.scores(readTurnQuery(item.query).normalizedQuery, snapshot)));
      const figures: string[] = [];
      for (const limit of [1, 2, 3, 4, 6, 8].filter((value) => value < snapshot.enabledAgents.length)) {
        const preselector = createCardPreselector({ limit, ranker });
        let lexical = 0;
        let withMeaning = 0;
        let total = 0;
        cases.forEach((item, index) => {
          const query = readTurnQuery(item.query);
          const shown = preselector.select({ query, history: [], pendingAgents: [], snapshot }).cards.map((card) => card.id);
          const meant = preselector.select({ query, history: [], pendingAgents: [], snapshot, ...(scores[index] ? { semantic: scores[index] } : {}) }).cards.map((card) => card.id);
          for (const agent of item.agents) {
            total += 1;
            if (shown.includes(agent)) lexical += 1;
            if (meant.includes(agent)) withMeaning += 1;
          }
        });
        figures.push(`K=${limit} ${((100 * lexical) / total).toFixed(1)} → ${((100 * withMeaning) / total).toFixed(1)}`);
      }
      console.log(`${file} (${cases.length} in-scope first-turn lines, ${snapshot.enabledAgents.length} cards), recall % lexical → with meaning: ${figures.join('; ')}`);
    }
  } finally {
    await fake.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
