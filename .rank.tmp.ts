import { readFileSync } from 'node:fs';
import { loadRegistryText } from '/work/wt-probe/src/registry/index.js';
import { createOfflineRecognizer } from '/work/wt-probe/src/intent/offline-recognizer.js';
import { createExampleRanker } from '/work/wt-probe/src/intent/routing/example-ranker.js';
import { readTurnQuery } from '/work/wt-probe/src/understanding/index.js';
const [file, ...queries] = process.argv.slice(2);
const loaded: any = await (loadRegistryText as any)(readFileSync(file, 'utf8'), file);
const snapshot = loaded.snapshot ?? loaded;
const ranker = createExampleRanker();
const rec = createOfflineRecognizer({ ranker });
for (const q of queries) {
  const input: any = { ...readTurnQuery(q), history: [], pendingAgents: [], snapshot };
  const r: any = ranker.rank(input, snapshot, undefined);
  console.log(q, JSON.stringify({ intents: r.intents, reason: r.reason, conf: r.confidence }));
  const res: any = await rec.recognize(input);
  console.log('  =>', res.kind, JSON.stringify(res.intents), res.reason);
}
