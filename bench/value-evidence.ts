/**
 * Whether a value the text holds could stand in for the words a request shares with a card, when nothing routes it
 * (decision 0064). Values a card's keys take (a city its enum lists, a match of its pattern) are masked out of the
 * texts' similarity, so "will it snow in Beijing on Saturday" shares no word with a weather card whose examples
 * name other cities and say "rain". Two rules are replayed on every line the offline recogniser answers with no
 * agent and no options; neither is in `src/`:
 *
 * - `any value`: the cards that take a value of the text are offered;
 * - `first card's value`: they are offered when the shortlist's first card is one of them, the two models back
 *   their card at least `offerShare` and its texts hold some of the text's words (covered > 0).
 *
 * Lines: the sample evals' single-turn lines (`examples/*`, travel on the root `agents_config.yaml`), and lines
 * written for this measurement on the travel registry, in scope and out of scope, each naming a city the registry
 * lists (written before either rule was run). BANKING77's generated registries have no keys: no rule here changes
 * anything there.
 *
 * Run: `npx tsx bench/value-evidence.ts`
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadRegistryText, type RegistrySnapshot } from '../src/registry/index.js';
import { buildModel } from '../src/intent/routing/ranker-model.js';
import { createExampleRanker } from '../src/intent/routing/example-ranker.js';
import { createOfflineRecognizer } from '../src/intent/offline-recognizer.js';
import { DEFAULT_CLARIFY_THRESHOLDS } from '../src/intent/clarification.js';
import type { RankShortlist } from '../src/intent/routing/card-ranker.js';
import { readTurnQuery } from '../src/understanding/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Lines written for this measurement on the travel registry: expected agent, or none (out of scope). */
export const WRITTEN_TRAVEL_LINES: readonly { query: string; expected?: string }[] = [
  { query: 'is Chengdu going to be chilly on Sunday', expected: 'weather_agent' },
  { query: 'will Guangzhou get a typhoon this week', expected: 'weather_agent' },
  { query: 'any storms expected over Hangzhou tonight', expected: 'weather_agent' },
  { query: 'somewhere to crash in Shenzhen for two nights', expected: 'hotel_agent' },
  { query: 'a room near the Bund in Shanghai for Friday', expected: 'hotel_agent' },
  { query: '成都后天出门要不要带伞', expected: 'weather_agent' },
  { query: '杭州那边下周末冷不冷', expected: 'weather_agent' },
  { query: '深圳有没有靠海的住处，住三晚', expected: 'hotel_agent' },
  { query: 'what is the population of Shanghai' },
  { query: 'how far is Beijing from Shanghai' },
  { query: 'best dumplings in Chengdu?' },
  { query: 'who is the mayor of Shenzhen' },
  { query: '杭州西湖门票多少钱' },
  { query: '广州有什么好吃的早茶' },
  { query: '上海迪士尼几点开门' },
  { query: "tell me the history of Xi'an" },
  { query: '北京的房价现在多少' },
  { query: 'is Hangzhou a good city to live in' },
  { query: '成都大熊猫基地怎么去' },
  { query: '深圳的地铁几点停运' },
];

/** What each rule would offer for a line nothing routed and nothing offered (empty: still nothing). */
export function replayValueRules(list: RankShortlist, valueCards: readonly string[]): { anyValue: string[]; firstCardsValue: string[] } {
  const anyValue = valueCards.slice(0, 3);
  const first = list.candidates[0]?.agentId;
  const firstTakes = first !== undefined && valueCards.includes(first) && list.backing >= DEFAULT_CLARIFY_THRESHOLDS.offerShare && list.covered > 0;
  return { anyValue, firstCardsValue: firstTakes ? anyValue : [] };
}

interface Tally {
  inScopeNothing: number;
  inScope: number;
  outOfScope: number;
  outOfScopeOffered: number;
  anyValue: { inScopeNothing: number; outOfScopeOffered: number };
  firstCardsValue: { inScopeNothing: number; outOfScopeOffered: number };
}

/** Routes each line, and for every one left with nothing replays both rules; prints the lines a rule changes. */
export async function measure(snapshot: RegistrySnapshot, lines: readonly { query: string; expected: string[] }[], print: (line: string) => void = () => {}): Promise<Tally> {
  const ranker = createExampleRanker();
  ranker.prepare(snapshot);
  const recognizer = createOfflineRecognizer({ ranker });
  const model = buildModel(snapshot);
  const tally: Tally = { inScopeNothing: 0, inScope: 0, outOfScope: 0, outOfScopeOffered: 0, anyValue: { inScopeNothing: 0, outOfScopeOffered: 0 }, firstCardsValue: { inScopeNothing: 0, outOfScopeOffered: 0 } };
  for (const { query, expected } of lines) {
    const reading = readTurnQuery(query);
    const result = await recognizer.recognize({ ...reading, history: [], snapshot, pendingAgents: [] });
    const inScope = expected.length > 0;
    tally[inScope ? 'inScope' : 'outOfScope'] += 1;
    const nothing = result.intents.length === 0 && !result.clarification;
    if (!nothing) {
      if (!inScope && result.clarification) tally.outOfScopeOffered += 1;
      continue;
    }
    const list = ranker.shortlist!(reading, snapshot, snapshot.enabledAgents.length);
    const text = String(reading.normalizedQuery);
    const taking = new Set(model.masksOf(text).flatMap((hit) => hit.cards ?? hit.family ?? []).map((card) => model.cards[card]!.id));
    const replayed = replayValueRules(list, list.candidates.map((candidate) => candidate.agentId).filter((agentId) => taking.has(agentId)));
    if (inScope) tally.inScopeNothing += 1;
    for (const rule of ['anyValue', 'firstCardsValue'] as const) {
      if (inScope && replayed[rule].length === 0) tally[rule].inScopeNothing += 1;
      if (!inScope && replayed[rule].length > 0) tally[rule].outOfScopeOffered += 1;
    }
    if (replayed.anyValue.length > 0) {
      const verdict = inScope ? (replayed.anyValue.some((agentId) => expected.includes(agentId)) ? 'in scope, right card offered' : 'in scope, wrong cards') : 'out of scope';
      print(`  ${verdict.padEnd(28)} any value: ${replayed.anyValue.join(',')}; first card's value: ${replayed.firstCardsValue.join(',') || '—'}  ${query}`);
    }
  }
  return tally;
}

const SAMPLES = [
  { name: 'travel', config: 'agents_config.yaml' },
  { name: 'ecommerce', config: 'examples/ecommerce/agents_config.yaml' },
  { name: 'assistant', config: 'examples/assistant/agents_config.yaml' },
];

function tallyText(name: string, tally: Tally): string {
  const share = (count: number, of: number) => `${count}/${of} (${of === 0 ? '—' : ((100 * count) / of).toFixed(1)} %)`;
  return [
    `${name}: in scope with nothing / out of scope offered options`,
    `  today               ${share(tally.inScopeNothing, tally.inScope)} / ${share(tally.outOfScopeOffered, tally.outOfScope)}`,
    `  any value           ${share(tally.anyValue.inScopeNothing, tally.inScope)} / ${share(tally.outOfScopeOffered + tally.anyValue.outOfScopeOffered, tally.outOfScope)}`,
    `  first card's value  ${share(tally.firstCardsValue.inScopeNothing, tally.inScope)} / ${share(tally.outOfScopeOffered + tally.firstCardsValue.outOfScopeOffered, tally.outOfScope)}`,
  ].join('\n');
}

export async function main(): Promise<void> {
  for (const sample of SAMPLES) {
    const loaded = loadRegistryText(await readFile(join(ROOT, sample.config), 'utf8'), sample.config, { env: {} });
    if (!loaded.ok) throw new Error(`${sample.config} does not load`);
    const rows = (await readFile(join(ROOT, 'examples', sample.name, 'eval.jsonl'), 'utf8')).split('\n').filter((row) => row.trim() !== '');
    const lines = rows
      .map((row) => JSON.parse(row) as { query?: string; agents?: string[]; session?: string[] })
      .filter((row) => typeof row.query === 'string' && (row.session?.length ?? 0) === 0)
      .map((row) => ({ query: row.query!, expected: row.agents ?? [] }));
    console.log(`${sample.name} eval, single-turn lines a rule would change:`);
    console.log(tallyText(`${sample.name} eval (single-turn lines)`, await measure(loaded.snapshot, lines, console.log)));
    if (sample.name === 'travel') {
      console.log('travel, lines written for this measurement, that a rule would change:');
      const written = WRITTEN_TRAVEL_LINES.map((line) => ({ query: line.query, expected: line.expected ? [line.expected] : [] }));
      console.log(tallyText('travel, written lines', await measure(loaded.snapshot, written, console.log)));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
