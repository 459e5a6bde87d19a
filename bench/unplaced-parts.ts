/**
 * How often the offline recogniser asks about, or says it did not handle, a part of a message beside the
 * requests it routed (decision 0058), on BANKING77 registries it has not seen (`bench/public-routing.ts`'s
 * builder). Every BANKING77 line is one request, so each question here is about words of the routed request or
 * of its context: the figure is the feature's noise on a fine-grained registry someone else wrote.
 *
 * Run: `npx tsx bench/unplaced-parts.ts [--split dev|test] [--k 10] [--seed 1]` (dev by default).
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { buildPublicRoutingSet, readBanking77 } from './public-routing.js';
import { createOfflineRecognizer } from '../src/intent/index.js';
import { loadRegistryText } from '../src/registry/index.js';
import { readTurnQuery } from '../src/understanding/index.js';

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { split: { type: 'string' }, k: { type: 'string' }, seed: { type: 'string' } } });
  const data = await readBanking77();
  if (!data) throw new Error('BANKING77 is not in ../shared/datasets/banking77');
  const split = values.split === 'test' ? 'test' : 'dev';
  const set = buildPublicRoutingSet(data, { k: Number(values.k ?? 10), seed: Number(values.seed ?? 1), split });
  const loaded = loadRegistryText(set.yaml, 'banking77.yaml', { env: {} });
  if (!loaded.ok) throw new Error(`the generated registry does not load: ${loaded.issues[0]?.message}`);
  const recognizer = createOfflineRecognizer();
  let severalClauses = 0;
  let asked = 0;
  let askedExpected = 0;
  let routedRightAndAsked = 0;
  let notHandled = 0;
  for (const line of set.lines) {
    const read = readTurnQuery(line.text);
    if (read.clauses.length > 1) severalClauses += 1;
    const result = await recognizer.recognize({ ...read, history: [], pendingAgents: [], snapshot: loaded.snapshot });
    if (result.askAbout) {
      asked += 1;
      if (result.askAbout.clarification.options.some((option) => option.sub_agent_id === line.agentId)) askedExpected += 1;
      if (result.intents.some((intent) => intent.agentId === line.agentId)) routedRightAndAsked += 1;
    }
    if (result.unplaced) notHandled += 1;
  }
  const pct = (count: number) => `${((100 * count) / set.lines.length).toFixed(2)} %`;
  console.log(`BANKING77 ${split}, k=${values.k ?? 10}, seed ${values.seed ?? 1}: ${set.lines.length} lines, ${severalClauses} of several clauses`);
  console.log(`  a part asked about: ${asked} (${pct(asked)}); the expected agent among its options: ${askedExpected}; the expected agent already routed: ${routedRightAndAsked}`);
  console.log(`  a part said not handled: ${notHandled} (${pct(notHandled)})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
