/**
 * `switchboard replay` on a store of 10,000 recorded turns: seeds the store
 * through the real storage API (masked, as the server writes: the turn begun
 * with the user's row, finished with the answer row and its events), then
 * runs the replay command as a child process under `/usr/bin/time` and
 * reports its wall time (process start, TypeScript loading and migrations
 * included), its CPU time, its own replay time and its peak memory (max RSS).
 * The edited registry is the sample one with one added weather example and
 * a careless flight keyword (住), so some turns move.
 *
 * Run: `npx tsx bench/replay-store.ts [--turns 10000] [--database-url URL]`
 * (default: a new SQLite file in a temp directory; a Postgres URL must name an
 * empty database). `--quick`: 1,000 turns. `--replay-only`: replay a store an
 * earlier run seeded (Postgres), without seeding.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { silentLogger } from '../src/logger.js';
import { maskForSnapshot, maskStorage } from '../src/privacy/index.js';
import { loadRegistryText } from '../src/registry/index.js';
import { openStorage } from '../src/store/index.js';

const ROOT = resolve(import.meta.dirname, '..');
const CITIES = ['北京', '上海', '广州', '深圳', '杭州', '成都', '西安', '南京', '武汉', '重庆', 'Beijing', 'Shanghai', 'Chengdu'];
const TEMPLATES: readonly [string, string | null][] = [
  ['帮我订{city}的酒店，{n}号入住', 'hotel_agent'],
  ['{city}有没有便宜的民宿，住{n}晚', 'hotel_agent'],
  ['book a hotel in {city} for {n} nights', 'hotel_agent'],
  ['{city}明天天气怎么样，要穿{n}件衣服吗', 'weather_agent'],
  ['what is the weather in {city} on day {n}', 'weather_agent'],
  ['明天出门要带伞吗，去{city}第{n}天', null],
  ['帮我查一下{n}号去{city}的机票', 'flight_agent'],
  ['book a flight to {city}, {n} passengers', 'flight_agent'],
  ['{n}号早上去{city}机场接机', 'limo_agent'],
  ['100美元换多少人民币，{city}第{n}家银行', 'exchange_agent'],
  ['讲个笑话吧，第{n}个，关于{city}', null],
  ['你好，我是{city}的第{n}位用户', null],
];

/** The n-th recorded message and what it was routed to when it was served. */
function message(index: number): { query: string; agent: string | null } {
  const [template, agent] = TEMPLATES[index % TEMPLATES.length]!;
  const city = CITIES[Math.floor(index / TEMPLATES.length) % CITIES.length]!;
  const n = 1 + (Math.floor(index / (TEMPLATES.length * CITIES.length)) % 60);
  return { query: template.replace('{city}', city).replace('{n}', String(n)), agent };
}

/** The events a served turn stores (the stages a client saw), as JSON text. */
function eventsOf(turnId: string, session: string, query: string, agent: string | null): string[] {
  const meta = (stage: string, state: Record<string, unknown> = {}) => ({ stage, turn_id: turnId, state });
  const event = (stage: string, content: string, agentId: string, state: Record<string, unknown> = {}, thinking = true) =>
    JSON.stringify({ type: stage === 'done' ? 'done' : 'content', content, agent_id: agentId, is_thinking: thinking, session_id: session, metadata: meta(stage, state) });
  const intents = agent ? [agent] : [];
  const events = [event('intent_start', '正在分析您的需求...', 'supervisor'), event('intent_done', '好的', 'supervisor', { kind: agent ? 'business' : 'simple', intents, confidence: 'high', rewritten_query: query })];
  if (agent) {
    events.push(event('plan_start', '正在规划...', 'supervisor'), event('plan_done', '计划已生成', 'supervisor', { tasks: [{ task_id: `${turnId}_1`, agent_id: agent }] }));
    events.push(event('agent_start', '处理中', agent), event('agent_done', '完成', agent, { status: 'completed' }));
    events.push(event('final', `已为您处理：${query}`, 'summarize', { delta: false, tasks: [{ status: 'completed' }] }, false));
  } else {
    events.push(event('final', '抱歉，这个问题我暂时无法处理。', 'supervisor', { kind: 'out_of_scope', delta: false }, false));
  }
  events.push(event('done', '', 'supervisor', { outcome: 'completed', duration_ms: 120 }, false));
  return events;
}

async function seed(databaseUrl: string, turns: number, registryText: string): Promise<number> {
  const loaded = loadRegistryText(registryText, 'agents_config.yaml', { env: {} });
  if (!loaded.ok) throw new Error('the sample registry does not load');
  const raw = await openStorage({ databaseUrl, logger: silentLogger });
  const storage = maskStorage(raw, maskForSnapshot(loaded.snapshot));
  try {
    if ((await storage.history.page({ limit: 1 })).length > 0) throw new Error(`${databaseUrl} already holds turns; give an empty store`);
    const started = performance.now();
    const weekMs = 7 * 86_400_000;
    const base = Date.now() - weekMs;
    for (let index = 0; index < turns; index++) {
      const { query, agent } = message(index);
      const turnId = `turn_bench_${String(index).padStart(6, '0')}`;
      const session = `s${index % 2000}`;
      const at = new Date(base + Math.floor((index / turns) * (weekMs - 60_000))).toISOString();
      await storage.transcript.beginTurn({ turnId, userId: `u${index % 500}`, sessionId: session, query, traceId: `trace_${index}`, createdAt: at });
      const events = eventsOf(turnId, session, query, agent).map((data, seq) => ({ seq: seq + 1, data }));
      await storage.transcript.finishTurn(turnId, { content: agent ? `已为您处理：${query}` : '抱歉', outcome: 'completed', createdAt: at, events });
    }
    return performance.now() - started;
  } finally {
    await storage.close();
  }
}

/** Runs the replay command as a child under /usr/bin/time; returns its report and measurements. */
function runReplay(databaseUrl: string, base: string, edited: string): Promise<{ wallS: number; cpuS: number; maxRssMb: number; report: { turns: number; unchanged: number; ms: number; changes: unknown[] } }> {
  return new Promise((done, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M %U %S', process.execPath, join(ROOT, 'bin/switchboard.js'), 'replay', '--base', base, '--config', edited, '--json'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, LLM_BASE_URL: '', LLM_MODEL: '', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', () => {
      const timing = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
      if (!timing) return reject(new Error(`no timing from /usr/bin/time: ${stderr}`));
      try {
        done({ wallS: Number(timing[1]), cpuS: Number(timing[3]) + Number(timing[4]), maxRssMb: Number(timing[2]) / 1024, report: JSON.parse(stdout) as never });
      } catch (error) {
        reject(new Error(`replay printed no report: ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}`, { cause: error }));
      }
    });
  });
}

/** Seeds, replays, prints one JSON line. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { turns: { type: 'string' }, 'database-url': { type: 'string' }, quick: { type: 'boolean' }, 'replay-only': { type: 'boolean' } } });
  const turns = Number(values.turns ?? (values.quick ? 1000 : 10_000));
  const dir = mkdtempSync(join(tmpdir(), 'sb-replay-bench-'));
  const databaseUrl = values['database-url'] ?? `sqlite:${join(dir, 'store.db')}`;
  try {
    const registry = readFileSync(join(ROOT, 'agents_config.yaml'), 'utf8');
    const edited = registry
      .replace('      - 北京明天天气怎么样\n', '      - 北京明天天气怎么样\n      - 明天出门要带伞吗\n')
      .replace('keywords: [机票, 航班, 飞机, 飞往, 订票, flight, plane, ticket, airline]', 'keywords: [机票, 航班, 飞机, 飞往, 订票, flight, plane, ticket, airline, 住]');
    if (edited === registry) throw new Error('the sample registry changed; update the bench edits');
    writeFileSync(join(dir, 'edited.yaml'), edited);
    // --replay-only: the store was seeded by an earlier run (a Postgres seed takes minutes on a loaded machine).
    const seedMs = values['replay-only'] ? 0 : await seed(databaseUrl, turns, registry);
    const run = await runReplay(databaseUrl, join(ROOT, 'agents_config.yaml'), join(dir, 'edited.yaml'));
    const load = (await import('node:os')).loadavg().map((value) => value.toFixed(1)).join(' ');
    console.log(
      JSON.stringify({
        name: 'replay-store',
        store: databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres',
        turns,
        seed_s: Number((seedMs / 1000).toFixed(1)),
        replayed: run.report.turns,
        changed: run.report.changes.length,
        replay_s: Number((run.report.ms / 1000).toFixed(2)),
        wall_s: run.wallS,
        cpu_s: Number(run.cpuS.toFixed(1)),
        max_rss_mb: Number(run.maxRssMb.toFixed(1)),
        load_average: load,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
