/**
 * `npx tsx bench/flood-agents.ts N`: starts N flooding SSE agents in this
 * process (so their sending does not share the measured server's event loop)
 * and prints their URLs as one JSON line; runs until killed.
 */
import { sseReply, startFakeAgent } from '../test/support/fake-agent.js';

const count = Number(process.argv[2] ?? 20);
const chunk = '数据'.repeat(2048);
const progress = [...Array.from({ length: 2000 }, (_unused, index) => `progress ${index}`), ...Array.from({ length: 400 }, () => chunk)];
const urls: string[] = [];
for (let index = 0; index < count; index++) urls.push((await startFakeAgent(sseReply({ progress, result: { status: 'completed', output: {}, message: '完成。' } }))).url);
console.log(JSON.stringify({ urls, bytes: progress.reduce((sum, item) => sum + Buffer.byteLength(item), 0) }));
