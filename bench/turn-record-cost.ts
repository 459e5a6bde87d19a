/**
 * What a turn's record costs: its stored size, and the time to build it from
 * the turn's events and mask it as storage does, for a two-intent demo turn.
 * Run: `npx tsx bench/turn-record-cost.ts [--turns N]`.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startDemoSwitchboard } from '../test/support/demo-switchboard.js';
import { buildTurnRecord } from '../src/turn/turn-record.js';
import { createPiiMasker } from '../src/privacy/index.js';

const turns = Number(process.argv[process.argv.indexOf('--turns') + 1] || 20);
const running = await startDemoSwitchboard({});
try {
  let lastEvents: Awaited<ReturnType<typeof running.board.chat>> = [];
  for (let index = 0; index < turns; index++) {
    lastEvents = await running.board.chat('帮我订北京的酒店，明天入住，再告诉我北京明天的天气', { sessionId: `cost-${index}` });
  }
  const db = new Database(join(running.board.dir, 'switchboard.db'), { readonly: true });
  const row = db.prepare('SELECT COUNT(*) AS n, AVG(LENGTH(record)) AS bytes, MAX(LENGTH(record)) AS most FROM sb_turns WHERE record IS NOT NULL').get() as { n: number; bytes: number; most: number };
  const events = db.prepare('SELECT AVG(total) AS bytes FROM (SELECT SUM(LENGTH(data)) AS total FROM sb_events GROUP BY turn_id)').get() as { bytes: number };
  db.close();
  // Build and mask the last turn's record again, many times, as finishTurn and the masked storage do.
  const done = lastEvents.at(-1)!.metadata.state!;
  const masker = createPiiMasker([]);
  const parts = {
    turnId: String(done.turn_id), sessionId: 's', owner: 'u1', traceId: 't', startedAt: Date.now(), query: '帮我订北京的酒店，明天入住，再告诉我北京明天的天气',
    answer: lastEvents.find((event) => event.metadata.stage === 'final')?.content ?? '', outcome: String(done.outcome), durationMs: 1, registryVersion: 'v',
    sessionTurn: 1, events: lastEvents, offsets: lastEvents.map((_, index) => index), timings: {}, usage: done.usage as never, agentCalls: [],
  };
  const rounds = 2000;
  const started = performance.now();
  for (let index = 0; index < rounds; index++) masker.maskDeep(buildTurnRecord(parts));
  const perTurnUs = ((performance.now() - started) / rounds) * 1000;
  console.log(`turn records: ${row.n} turns, record ${Math.round(row.bytes)} bytes on average (largest ${row.most}); the same turn's stored events ${Math.round(events.bytes)} bytes`);
  console.log(`build + mask one record: ${perTurnUs.toFixed(1)} µs (mean of ${rounds})`);
} finally {
  await running.close();
}
