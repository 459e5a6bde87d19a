/**
 * `npm run bench`: every benchmark in turn. Each prints its own figures and
 * its ratio to the target or baseline; the exit code is non-zero when a target
 * is missed.
 */
import { main as reload } from './reload.js';
import { main as llmCalls } from './llm-calls.js';

const reloadResult = await reload();
console.log('');
await llmCalls();
process.exitCode = reloadResult.pass ? 0 : 1;
