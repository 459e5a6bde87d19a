import { writeFileSync } from 'node:fs';
import { buildPublicRoutingSet, readBanking77, loadCode } from './public-routing.js';
import { buildModel } from '../src/intent/routing/ranker-model.js';
import { trainGramClassifier } from '../src/intent/routing/gram-classifier.js';
import { normalizeText } from '../src/text/text-terms.js';
import { loadRegistryText } from '../src/registry/index.js';
import { createExampleRanker } from '../src/intent/routing/example-ranker.js';
import { createOfflineRecognizer } from '../src/intent/offline-recognizer.js';
import { readQuery } from '../src/text/index.js';
import type { RegistrySnapshot } from '../src/registry/types.js';

const split = (process.argv[2] ?? 'dev') as 'dev' | 'test';
const k = Number(process.argv[3] ?? 10);
const data = (await readBanking77())!;
const set = buildPublicRoutingSet(data, { k, seed: 1, split });
const loaded = loadRegistryText(set.yaml, 'x.yaml', { env: {} });
if (!loaded.ok) throw new Error('bad');
const snapshot = loaded.snapshot as RegistrySnapshot;
let t = performance.now();
const model = buildModel(snapshot);
console.error('model ms', performance.now() - t, 'trusted', model.grams.trusted, model.gramConfidence);
t = performance.now();
const docs = snapshot.enabledAgents.flatMap((card, i) => [...card.examples, card.name, card.description].map((raw) => ({ text: normalizeText(raw), card: i })));
const grams2 = trainGramClassifier(docs, snapshot.enabledAgents.length, { minHeldOutRight: 0 });
console.error('grams2 ms', performance.now() - t, grams2.trusted, grams2.temperature);
const ranker = createExampleRanker(); ranker.prepare(snapshot);
const recognizer = createOfflineRecognizer({ ranker });
const ids = snapshot.enabledAgents.map((c) => c.id);
const out: unknown[] = [];
for (const line of set.lines) {
  const text = normalizeText(line.text);
  const s = model.index.score(model.withSynonyms(text), model.masksOf(text));
  const g = grams2.probabilities(text);
  const r = await recognizer.recognize({ ...readQuery(line.text), history: [], snapshot, pendingAgents: [] });
  const routed = r.kind === 'business' ? r.intents.map((i) => i.agentId) : [];
  const gold = line.agentId === undefined ? -1 : ids.indexOf(line.agentId);
  out.push({ gold, routed: routed.map((id) => ids.indexOf(id)), familiar: s.familiar, post: [...s.posterior], grams: [...g], nearest: [...s.nearest], covered: [...s.covered], centroid: [...s.centroid], strong: [...s.strong] });
}
writeFileSync(`/tmp/clar/${split}-${k}.json`, JSON.stringify(out));
