/**
 * `npm run bench`: every benchmark in turn. Each prints its own figures and
 * its ratio to the target or baseline; the exit code is non-zero when a target
 * is missed. `bench/replicas.ts` needs the local PostgreSQL and Redis.
 */
import { main as reload } from './reload.js';
import { main as llmCalls } from './llm-calls.js';
import { main as replicas } from './replicas.js';
import { main as memoryAndCaches } from './memory-and-caches.js';
import { main as abuse } from './abuse.js';
import { main as traceOverhead } from './trace-overhead.js';

const reloadResult = await reload();
console.log('');
await llmCalls();
console.log('');
const replicasResult = await replicas();
console.log('');
const memoryResult = await memoryAndCaches();
console.log('');
const abuseResult = await abuse();
console.log('');
await traceOverhead();
process.exitCode = reloadResult.pass && replicasResult.pass && memoryResult.pass && abuseResult.pass ? 0 : 1;
