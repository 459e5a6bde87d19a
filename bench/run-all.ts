/**
 * `npm run bench`: every benchmark in turn. Each prints its own figures and
 * its ratio to the target or to what it is compared with, measured in the same
 * run; the exit code is non-zero when a target is missed.
 *
 * `npm run bench -- --quick` keeps the whole run to a few minutes: the load
 * bench runs short closed- and open-loop shapes, the peer comparison fewer
 * runs, and the replica bench is left out. Without it, everything runs at full
 * length. `bench/replicas.ts` and `--postgres` need the local PostgreSQL and
 * Redis.
 *
 * After the load bench, the cost ledger (bench/cost-ledger.ts) counts what one
 * business turn does on this checkout and on the baseline (`--baseline <ref>`,
 * default the merge-base with `main`), printed beside the load bench's CPU per
 * turn and its ratio to the floor. It runs on PostgreSQL + Redis too unless `--quick`
 * is given without `--postgres`.
 */
import { parseArgs } from 'node:util';
import { main as reload } from './reload.js';
import { main as llmCalls } from './llm-calls.js';
import { main as replicas } from './replicas.js';
import { main as memoryAndCaches } from './memory-and-caches.js';
import { main as abuse } from './abuse.js';
import { main as traceOverhead } from './trace-overhead.js';
import { main as vsPeer } from './vs-peer.js';
import { main as load } from './load.js';
import { main as publicRouting } from './public-routing.js';
import { main as costLedger } from './cost-ledger.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean' }, postgres: { type: 'boolean' }, workers: { type: 'string' }, baseline: { type: 'string' } } });
const quick = values.quick ?? false;

const passed: Record<string, boolean> = {};
const peerResult = await vsPeer({ quick });
passed['vs-peer'] = peerResult.pass;
console.log('');
const loadResult = await load({ quick, postgres: values.postgres, workers: values.workers ? Number(values.workers) : undefined });
passed.load = loadResult.pass;
console.log('');
passed['cost-ledger'] = (await costLedger({ baseline: values.baseline, postgres: !quick || values.postgres })).pass;
for (const row of loadResult.rows.filter((each) => each.mode === 'offline' && each.server !== 'floor' && each.shape.startsWith('closed'))) {
  const floor = loadResult.rows.find((each) => each.mode === 'offline' && each.server === 'floor' && each.shape === row.shape);
  const ratio = floor ? ` = ${(row.cpuMsPerTurn / floor.cpuMsPerTurn).toFixed(1)}× the floor (${floor.cpuMsPerTurn} ms)` : '';
  console.log(`Beside it, load bench (offline, ${row.server}, ${row.shape}): CPU ${row.cpuMsPerTurn} ms/turn${ratio}`);
}
console.log('');
passed['llm-calls'] = (await llmCalls({ peer: peerResult.peer })).pass;
console.log('');
passed['public-routing'] = (await publicRouting(quick ? ['--quick'] : [])).pass;
console.log('');
if (!quick) {
  passed.reload = (await reload()).pass;
  console.log('');
  passed.replicas = (await replicas()).pass;
  console.log('');
  passed['memory-and-caches'] = (await memoryAndCaches()).pass;
  console.log('');
  passed.abuse = (await abuse()).pass;
  console.log('');
  await traceOverhead();
  console.log('');
}
console.log(`Benches: ${Object.entries(passed).map(([name, pass]) => `${name} ${pass ? 'pass' : 'FAIL'}`).join(', ')}`);
process.exitCode = Object.values(passed).every(Boolean) ? 0 : 1;
