/**
 * What the clarification could read to tell an in-scope request from an
 * out-of-scope one, measured before anything is built on it (decision 0057).
 *
 * - **BANKING77** (`--split dev` only: the train rows not drawn as examples;
 *   the registries of `public-routing.ts`, 10 intents held out): for every
 *   signal the shortlist and its two models give (`shortlist.ts`,
 *   `example-index.ts`, `gram-classifier.ts`), the area under the ROC curve
 *   between the in-scope lines and the held-out intents' lines: 0.5 tells
 *   nothing, 1 separates them.
 * - **The sample evals** (`examples/*`; travel reads the root
 *   `agents_config.yaml`): every in-scope line without history that the offline
 *   recogniser answers with no agent and no options, with what the
 *   clarification read and which of its conditions for offering options
 *   (`decideClarification`) it missed, and the same for the out-of-scope lines,
 *   so what a looser condition would offer to out-of-scope lines is on the same
 *   page.
 *
 * - **Leave one out on each registry**: every keyword-free example of a card
 *   scored with itself taken out (as `gate-calibration.ts` does): how much of
 *   it its own card's other texts hold (an in-scope request told in other
 *   words), and how much the card the models back most after its own holds
 *   (a request of an intent the registry lacks: its card left out of the
 *   reading, not of the training, so an approximation). Printed as quantiles
 *   beside the same figure on the eval's real lines: whether a threshold taken
 *   from the registry itself would fit them.
 *
 * Run: `npx tsx bench/clarify-signals.ts [--k 10,20] [--seed 1] [--examples-only | --banking-only]`
 * Absent dataset: the BANKING77 part says so and is skipped.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildPublicRoutingSet, readBanking77, type PublicRoutingSet } from './public-routing.js';
import { loadRegistryText, type RegistrySnapshot } from '../src/registry/index.js';
import { buildModel, keywordFreeExamples } from '../src/intent/routing/ranker-model.js';
import { shortlistOf } from '../src/intent/routing/shortlist.js';
import { createExampleRanker } from '../src/intent/routing/example-ranker.js';
import { createOfflineRecognizer } from '../src/intent/offline-recognizer.js';
import { DEFAULT_CLARIFY_THRESHOLDS, type ClarifyThresholds } from '../src/intent/clarification.js';
import type { RankShortlist } from '../src/intent/routing/card-ranker.js';
import { readTurnQuery } from '../src/understanding/index.js';
import { isFunctionTerm } from '../src/text/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Area under the ROC curve of a score between `positives` and `negatives`: the chance that a positive scores
 * above a negative, ties counted half. NaN when either side is empty.
 */
export function areaUnderCurve(positives: readonly number[], negatives: readonly number[]): number {
  if (positives.length === 0 || negatives.length === 0) return Number.NaN;
  const sorted = [...negatives].sort((a, b) => a - b);
  // For each positive: negatives strictly below it, plus half of those equal to it (binary search on both ends).
  const firstAtLeast = (value: number) => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]! < value) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const firstAbove = (value: number) => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]! <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  let wins = 0;
  for (const value of positives) {
    const below = firstAtLeast(value);
    wins += below + 0.5 * (firstAbove(value) - below);
  }
  return wins / (positives.length * sorted.length);
}

/**
 * The conditions for offering options (`decideClarification`, a request nothing routed) that `list` misses,
 * in the order the decision reads them; empty when options would be offered.
 */
export function missedConditions(list: RankShortlist, thresholds: ClarifyThresholds = DEFAULT_CLARIFY_THRESHOLDS): string[] {
  if (list.candidates.length === 0) return ['no candidate'];
  const missed: string[] = [];
  if (list.backing < thresholds.offerShare) missed.push(`backing ${list.backing.toFixed(2)} < ${thresholds.offerShare}`);
  if (list.covered < thresholds.minCovered) missed.push(`covered ${list.covered.toFixed(2)} < ${thresholds.minCovered}`);
  if (list.centroid < thresholds.minCentroid) missed.push(`centroid ${list.centroid.toFixed(3)} < ${thresholds.minCentroid}`);
  if (list.shared < 1) missed.push('no word in common');
  return missed;
}

/** The signals measured on each line, by name. */
export const SIGNALS = [
  'backing',
  'first share',
  'share margin',
  'covered',
  'centroid',
  'words in common',
  'covered × backing',
  'n-gram, backed card',
  'n-gram, max',
  'posterior, max',
  'familiar',
  'nearest example',
  'covered margin',
  'nearest ÷ own spread',
  'word-drop stability',
] as const;
export type SignalName = (typeof SIGNALS)[number];

/** Area under the curve of every signal on one registry's dev lines (in scope against held out). */
export function signalAreas(set: PublicRoutingSet): { areas: Record<SignalName, number>; covered: { inScope: number[]; outOfScope: number[] } } {
  const loaded = loadRegistryText(set.yaml, 'banking77.yaml', { env: {} });
  if (!loaded.ok) throw new Error('the generated registry does not load');
  // The ranker's own model, built the way `example-ranker.ts` builds it (the registry has no synonyms or slot values).
  const model = buildModel(loaded.snapshot);
  const spread = ownSpread(model);
  const values = new Map<SignalName, { in: number[]; out: number[] }>(SIGNALS.map((name) => [name, { in: [], out: [] }]));
  for (const line of set.lines) {
    const text = String(readTurnQuery(line.text).normalizedQuery);
    const scores = model.index.score(text, model.masksOf(text));
    const grams = model.grams.probabilities(text, []);
    const list = shortlistOf(scores, grams, 3);
    if (list.backed < 0) continue;
    const first = list.entries[0]?.share ?? 0;
    const row: Record<SignalName, number> = {
      backing: list.backing,
      'first share': first,
      'share margin': first - (list.entries[1]?.share ?? 0),
      covered: list.covered,
      centroid: list.centroid,
      'words in common': list.shared,
      'covered × backing': list.covered * list.backing,
      'n-gram, backed card': grams[list.backed] ?? 0,
      'n-gram, max': Math.max(...grams),
      'posterior, max': Math.max(...scores.posterior),
      familiar: scores.familiar,
      'nearest example': scores.nearest[list.backed] ?? 0,
      'covered margin': list.covered - Math.max(0, ...Array.from(scores.covered).filter((_, card) => card !== list.backed)),
      'nearest ÷ own spread': (scores.nearest[list.backed] ?? 0) / Math.max(spread[list.backed] ?? 0, 0.05),
      'word-drop stability': wordDropStability(model, text, list.entries[0]?.cardIndex ?? -1),
    };
    for (const name of SIGNALS) values.get(name)![line.agentId === undefined ? 'out' : 'in'].push(row[name]);
  }
  const areas = Object.fromEntries(SIGNALS.map((name) => [name, areaUnderCurve(values.get(name)!.in, values.get(name)!.out)])) as Record<SignalName, number>;
  return { areas, covered: { inScope: values.get('covered')!.in, outOfScope: values.get('covered')!.out } };
}

/**
 * How close a card's examples are to each other: the median, over its examples, of each one's nearest other example
 * of the card (cosine, leave-one-out). `nearest ÷ own spread` reads a query's nearest example against it: a query as
 * close to the card as its examples are to each other scores 1, whatever the card's wording.
 */
function ownSpread(model: ReturnType<typeof buildModel>): number[] {
  return model.cards.map((card, cardIndex) => {
    const nearest: number[] = [];
    card.examples.forEach((example, exampleIndex) => {
      const document = model.index.exampleDocument(cardIndex, exampleIndex);
      if (document === undefined) return;
      const text = example.normalize('NFKC');
      nearest.push(model.index.score(text, model.masksOf(text), document).nearest[cardIndex]!);
    });
    nearest.sort((a, b) => a - b);
    return nearest[Math.floor(nearest.length / 2)] ?? 0;
  });
}

/**
 * Share of the text's content words (two letters or more, no function word) whose removal leaves `first` the
 * shortlist's first card: a request told in several of a card's words keeps it, a question that met the card on one
 * word loses it. 1 when there is no such word. Costs one scoring per word.
 */
function wordDropStability(model: ReturnType<typeof buildModel>, text: string, first: number): number {
  const words = text.split(/\s+/u).filter((word) => word.length > 0);
  let kept = 0;
  let tried = 0;
  words.forEach((word, at) => {
    const plain = word.toLowerCase().replace(/[^\p{L}']/gu, '');
    if (plain.length < 2 || isFunctionTerm(plain)) return;
    const rest = [...words.slice(0, at), ...words.slice(at + 1)].join(' ');
    const list = shortlistOf(model.index.score(rest, model.masksOf(rest)), model.grams.probabilities(rest, []), 1);
    tried += 1;
    if (list.entries[0]?.cardIndex === first) kept += 1;
  });
  return tried === 0 ? 1 : kept / tried;
}

/** The coverage figures of a registry's own examples, left out one at a time (see the header). */
export function leaveOneOutCoverage(snapshot: RegistrySnapshot, most = 300): { inScope: number[]; pseudoOutOfScope: number[] } {
  const model = buildModel(snapshot);
  const examples = keywordFreeExamples(model);
  const step = Math.max(1, examples.length / most);
  const inScope: number[] = [];
  const pseudoOutOfScope: number[] = [];
  for (let at = 0; at < examples.length; at += step) {
    const example = examples[Math.floor(at)]!;
    const document = model.index.exampleDocument(example.cardIndex, example.exampleIndex);
    if (document === undefined) continue;
    const scores = model.index.score(example.text, model.masksOf(example.text), document);
    let other = -1;
    for (let card = 0; card < scores.posterior.length; card += 1) if (card !== example.cardIndex && (other < 0 || scores.posterior[card]! > scores.posterior[other]!)) other = card;
    inScope.push(scores.covered[example.cardIndex]!);
    if (other >= 0) pseudoOutOfScope.push(scores.covered[other]!);
  }
  return { inScope, pseudoOutOfScope };
}

/** The 10th, 25th, 50th, 75th and 90th percentiles of `values`, as text. */
export function quantilesText(values: readonly number[]): string {
  if (values.length === 0) return '(none)';
  const sorted = [...values].sort((a, b) => a - b);
  return [0.1, 0.25, 0.5, 0.75, 0.9].map((quantile) => sorted[Math.floor(quantile * (sorted.length - 1))]!.toFixed(2)).join(' / ');
}

/** One sample eval's line the recogniser answered with nothing, or an out-of-scope line, with what the clarification read. */
export interface LineReading {
  line: number;
  query: string;
  expected: string[];
  /** `nothing`: no agent, no options; `offered`: options; `routed`: an agent. */
  outcome: 'nothing' | 'offered' | 'routed';
  list: RankShortlist;
  missed: string[];
  /** Where the expected card is among the shortlist's three (1-based); 0: not there. */
  place: number;
}

/** Runs a sample eval's single-turn lines through the offline recogniser; returns the in-scope lines with nothing and every out-of-scope line. */
export async function readSampleEval(snapshot: RegistrySnapshot, evalText: string, coverage?: { inScope: number[]; outOfScope: number[] }): Promise<LineReading[]> {
  const ranker = createExampleRanker();
  ranker.prepare(snapshot);
  const recognizer = createOfflineRecognizer({ ranker });
  const readings: LineReading[] = [];
  const rows = evalText.split('\n').map((row, index) => ({ row: row.trim(), line: index + 1 }));
  for (const { row, line } of rows) {
    if (row === '') continue;
    const parsed = JSON.parse(row) as { query?: string; agents?: string[]; session?: string[] };
    if (typeof parsed.query !== 'string' || (parsed.session?.length ?? 0) > 0) continue;
    const expected = parsed.agents ?? [];
    const reading = readTurnQuery(parsed.query);
    const result = await recognizer.recognize({ ...reading, history: [], snapshot, pendingAgents: [] });
    const outcome = result.kind === 'business' && result.intents.length > 0 ? 'routed' : result.clarification ? 'offered' : 'nothing';
    const list = ranker.shortlist!(reading, snapshot, 3);
    coverage?.[expected.length > 0 ? 'inScope' : 'outOfScope'].push(list.covered);
    if (expected.length > 0 && outcome !== 'nothing') continue;
    const place = expected.length === 0 ? 0 : list.candidates.findIndex((candidate) => expected.includes(candidate.agentId)) + 1;
    readings.push({ line, query: parsed.query, expected, outcome, list, missed: missedConditions(list), place });
  }
  return readings;
}

const SAMPLE_EVALS = [
  { name: 'travel', config: 'agents_config.yaml' },
  { name: 'ecommerce', config: 'examples/ecommerce/agents_config.yaml' },
  { name: 'assistant', config: 'examples/assistant/agents_config.yaml' },
];

function describeReading(reading: LineReading): string {
  const { list } = reading;
  const cards = list.candidates.map((candidate) => `${candidate.agentId}:${candidate.share.toFixed(2)}`).join(' ');
  const signals = `backing ${list.backing.toFixed(2)} covered ${list.covered.toFixed(2)} centroid ${list.centroid.toFixed(3)} shared ${list.shared}`;
  const place = reading.expected.length === 0 ? '' : ` expected ${reading.place === 0 ? 'not in the three' : `#${reading.place}`};`;
  return `  ${String(reading.line).padStart(3)} ${reading.outcome.padEnd(7)} ${signals};${place} misses: ${reading.missed.join(', ') || 'none'}  [${cards}]  ${reading.query}`;
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { k: { type: 'string' }, seed: { type: 'string' }, 'examples-only': { type: 'boolean' }, 'banking-only': { type: 'boolean' } }, strict: true });
  if (!values['banking-only']) {
    for (const sample of SAMPLE_EVALS) {
      const loaded = loadRegistryText(await readFile(join(ROOT, sample.config), 'utf8'), sample.config, { env: {} });
      if (!loaded.ok) throw new Error(`${sample.config} does not load`);
      const coverage = { inScope: [] as number[], outOfScope: [] as number[] };
      const readings = await readSampleEval(loaded.snapshot, await readFile(join(ROOT, 'examples', sample.name, 'eval.jsonl'), 'utf8'), coverage);
      const own = leaveOneOutCoverage(loaded.snapshot);
      console.log(`${sample.name}: covered, 10th / 25th / 50th / 75th / 90th percentile`);
      console.log(`  registry, left out: in scope ${quantilesText(own.inScope)}; pseudo out of scope ${quantilesText(own.pseudoOutOfScope)} (${own.inScope.length} examples)`);
      console.log(`  eval lines:         in scope ${quantilesText(coverage.inScope)}; out of scope ${quantilesText(coverage.outOfScope)}`);
      const nothing = readings.filter((reading) => reading.expected.length > 0);
      const outOfScope = readings.filter((reading) => reading.expected.length === 0);
      console.log(`${sample.name}: ${nothing.length} in-scope line(s) with no agent and no options`);
      for (const reading of nothing) console.log(describeReading(reading));
      console.log(`${sample.name}: ${outOfScope.length} out-of-scope line(s)`);
      for (const reading of outOfScope) console.log(describeReading(reading));
    }
  }
  if (values['examples-only']) return;
  const data = await readBanking77();
  if (!data) {
    console.log('clarify-signals: BANKING77 part skipped, no dataset beside the repository');
    return;
  }
  const ks = (values.k ?? '10,20').split(',').map(Number);
  const seed = Number(values.seed ?? 1);
  const sets = ks.map((k) => buildPublicRoutingSet(data, { k, seed, split: 'dev' }));
  const measured = sets.map((set) => signalAreas(set));
  const areas = measured.map((entry) => entry.areas);
  sets.forEach((set, index) => {
    const loaded = loadRegistryText(set.yaml, 'banking77.yaml', { env: {} });
    if (!loaded.ok) return;
    const own = leaveOneOutCoverage(loaded.snapshot);
    const lines = measured[index]!.covered;
    console.log(`BANKING77 k=${ks[index]}: covered, 10th / 25th / 50th / 75th / 90th percentile`);
    console.log(`  registry, left out: in scope ${quantilesText(own.inScope)}; pseudo out of scope ${quantilesText(own.pseudoOutOfScope)} (${own.inScope.length} examples)`);
    console.log(`  dev lines:          in scope ${quantilesText(lines.inScope)}; out of scope ${quantilesText(lines.outOfScope)}`);
  });
  console.log(`\nBANKING77 dev split, seed ${seed}: area under the ROC curve, in-scope lines against held-out intents' lines`);
  console.log(`${'signal'.padEnd(22)}${ks.map((k) => `k=${k}`.padStart(8)).join('')}`);
  for (const name of SIGNALS) console.log(`${name.padEnd(22)}${areas.map((area) => area[name].toFixed(3).padStart(8)).join('')}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
