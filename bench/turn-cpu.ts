/**
 * CPU per offline turn: the real server (HTTP, graph, SQLite, SSE) over the
 * sample travel and e-commerce registries with zero-latency fake sub-agents,
 * driving short dialogues (a request, a value answered, a correction, a
 * confirmation, several requests in one message) and reading
 * `process.cpuUsage()` around them. The fakes run in this process too, so the
 * figure is an upper bound of what the supervisor spends; compare it between
 * versions, not against a budget.
 *
 * Run: `npx tsx bench/turn-cpu.ts [rounds] [--embeddings] [--profile=FILE]` (default 30 rounds;
 * each round is one dialogue per registry, 11 turns). With `--embeddings` both
 * servers use the fake concept-space `/v1/embeddings` endpoint
 * (test/support/fake-embeddings.ts, a test double, not a model) running in this
 * process too: the difference from a run without it is what the embeddings path
 * costs per turn here (the fake's own work included), cards embedded before the
 * timed rounds. `--profile=FILE` writes a CPU profile of the timed rounds only
 * (`.cpuprofile`, main thread; the profiler's own cost is in the CPU figure then).
 */
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../test/support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard, type TestSwitchboard } from '../test/support/switchboard-harness.js';
import { startFakeEmbeddings, type FakeEmbeddingsServer } from '../test/support/fake-embeddings.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);

const TRAVEL_DIALOGUE = [
  '帮我订北京的酒店，明天入住',
  '不对，改成上海',
  '确认',
  '查询北京明天的天气和明天从北京到上海的航班',
  'book a hotel in Beijing, check in tomorrow',
  'yes',
];
const SHOP_DIALOGUE = ['帮我查一下订单的状态', '订单号 A1001', '那物流呢', '我要退款，订单 A1001，原因是质量问题', '确认'];

async function board(file: string, ports: number[], embeddings?: FakeEmbeddingsServer): Promise<{ board: TestSwitchboard; agents: FakeAgent[] }> {
  const agents: FakeAgent[] = [];
  const urls: Record<number, string> = {};
  for (const port of ports) {
    const agent = await startFakeAgent(
      port === 7104
        ? sseReply({ result: { status: 'completed', output: { city: '北京', forecast: [] }, message: '晴。' } })
        : jsonReply({ output: { order_id: 'A1001', status: 'shipped', events: [], refund_id: 'RF-1', booking_id: 'BK-1', hotels: [], flights: [] }, message: '好的。' }),
    );
    agents.push(agent);
    urls[port] = agent.url;
  }
  const yaml = sampleRegistry(file, urls, { keepSideEffects: true, answerCacheTtlS: 0 }).replace(/^\s*cache_ttl_s:.*\n/gm, '');
  const env = embeddings ? { EMBEDDINGS_BASE_URL: embeddings.baseUrl, EMBEDDINGS_MODEL: 'concepts' } : undefined;
  // The database in a folder of its own, as `serve`'s default has it (beside the registry, each write wakes its watcher).
  return { board: await startTestSwitchboard({ registryYaml: yaml, now: () => NOW, databaseInDataFolder: true, ...(env ? { env } : {}) }), agents };
}

export async function main(rounds = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 30), withEmbeddings = process.argv.includes('--embeddings')): Promise<void> {
  const embeddings = withEmbeddings ? await startFakeEmbeddings() : undefined;
  const travel = await board('agents_config.yaml', [7101, 7102, 7103, 7104], embeddings);
  const shop = await board('examples/ecommerce/agents_config.yaml', [7201, 7202, 7203, 7204, 7205], embeddings);
  // Each round's messages end in their own number of "。" (read as nothing by routing): a round's messages are new
  // texts, so the embeddings client's per-replica cache does not answer them from an earlier round.
  const run = async (round: number) => {
    const end = '。'.repeat(round + 4);
    for (const query of TRAVEL_DIALOGUE) await travel.board.chat(`${query}${end}`, { sessionId: `travel-${round}` });
    for (const query of SHOP_DIALOGUE) await shop.board.chat(`${query}${end}`, { sessionId: `shop-${round}` });
  };
  // Warm-up: module loading, JIT, the ranker's model per snapshot.
  for (let round = 0; round < 3; round++) await run(-1 - round);
  const turns = rounds * (TRAVEL_DIALOGUE.length + SHOP_DIALOGUE.length);
  const requestsBefore = embeddings?.requests.length ?? 0;
  const profileAt = process.argv.find((arg) => arg.startsWith('--profile='))?.slice('--profile='.length);
  const session = profileAt ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let round = 0; round < rounds; round++) await run(round);
  const used = process.cpuUsage(cpu);
  const wall = performance.now() - started;
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileAt!, JSON.stringify(profile));
    session.disconnect();
  }
  const requests = (embeddings?.requests.length ?? 0) - requestsBefore;
  console.log(`offline turns: ${turns}${embeddings ? ` (embeddings: fake endpoint, ${(requests / turns).toFixed(2)} requests per turn)` : ''}`);
  console.log(`cpu per turn:  ${((used.user + used.system) / 1000 / turns).toFixed(2)} ms (user ${(used.user / 1000 / turns).toFixed(2)}, system ${(used.system / 1000 / turns).toFixed(2)})`);
  console.log(`wall per turn: ${(wall / turns).toFixed(2)} ms`);
  for (const { board: running, agents } of [travel, shop]) {
    await running.close();
    await Promise.all(agents.map((agent) => agent.close()));
  }
  await embeddings?.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
