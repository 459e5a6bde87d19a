/**
 * The hardening cases of the abuse probe: each runs against a real
 * Switchboard in this process (SQLite file, HTTP server, fake agents) with a
 * `/healthz` prober running throughout, and reports what leaked (a count) and
 * the worst and p99 `/healthz` latency during it.
 *
 * 1. split secret   another agent's token cut between the last progress message and the result
 *                   (also with another agent's progress between), plus the token in a debug field
 *                   of the output: occurrences in events, answer and the SQLite file
 * 2. full-width     a full-width phone and e-mail: raw in the SQLite file, or sent to an agent
 *                   that did not declare them
 * 3. alias bomb     a 1.25 MB registry whose one 1.24 MB example is aliased 1,000 times, hot
 *                   reloaded: 1 when it went live or last_error stays empty
 * 4. 20 floods      20 turns at once on agents streaming megabytes of progress: leaks = turns that
 *                   did not end; also an ordinary turn's time and the process's memory
 * 5. rate limit     open mode, per_user_per_minute 2 + burst 0, 10 requests each with a made-up
 *                   Authorization header: requests let through past the limit
 * 6. webhook        an escalation webhook that answers 302: requests that followed the redirect;
 *                   plus a registry with a metadata-address webhook accepted at load
 * 7. edge bodies    content-encoding br (non-JSON or 5xx answer), a declared 1 GB body (not a 413
 *                   within 1 s), a turn of a killed process still running after the sweeper
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { agentByteBudget } from '../src/agents/byte-budget.js';
import type { AddressInfo } from 'node:net';
import { startServer, type RunningServer } from '../src/http/index.js';
import { silentLogger } from '../src/logger.js';
import { createSwitchboard, type Switchboard } from '../src/switchboard.js';
import type { WatchedRegistry } from '../src/registry/watch-registry.js';
import { loadRegistryText } from '../src/registry/load-registry.js';
import { openSqliteStorage } from '../src/store/index.js';
import { startTurnSweeper } from '../src/turn/turn-sweeper.js';
import { createTicketWebhook } from '../src/escalation/ticket-webhook.js';
import type { EscalationCard } from '../src/escalation/escalation-card.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../test/support/fake-agent.js';
import { aliasedExampleRegistry, plainRegistry, quantile, SPLIT_SECRET_TOKEN, splitSecretRegistry, startHealthProbe } from '../test/support/hostile-registries.js';
import { chatOverSse } from '../test/support/switchboard-harness.js';

/** What one case found. */
export interface CaseFigures {
  name: string;
  leaked: number;
  worstHealthMs: number;
  p99HealthMs: number;
  probes: number;
  note: string;
}

interface Board {
  url: string;
  dir: string;
  configPath: string;
  switchboard: Switchboard;
  close(): Promise<void>;
}

async function startBoard(registryYaml: string, env: Record<string, string> = {}): Promise<Board> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-abuse-hard-'));
  const configPath = join(dir, 'agents_config.yaml');
  writeFileSync(configPath, registryYaml);
  const switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger: silentLogger, env, watch: true });
  const server: RunningServer = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
  return {
    url: server.url,
    dir,
    configPath,
    switchboard,
    async close() {
      await server.close();
      await switchboard.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function databaseText(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name.startsWith('switchboard.db'))
    .map((name) => readFileSync(join(dir, name)).toString('utf8'))
    .join('\n');
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Runs `body` with a /healthz prober on `url`, and returns the figures. */
async function probed(name: string, url: string, body: () => Promise<{ leaked: number; note: string }>): Promise<CaseFigures> {
  // One warm-up request first: the first answer of a fresh server pays for compiling its routes.
  await (await fetch(`${url}/healthz`)).arrayBuffer();
  const probe = startHealthProbe(url, 20);
  let outcome: { leaked: number; note: string };
  try {
    outcome = await body();
  } finally {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const latencies = await probe.stop();
  return {
    name,
    ...outcome,
    note: `${outcome.note}; /healthz p50 ${Math.round(quantile(latencies, 0.5))} ms, p90 ${Math.round(quantile(latencies, 0.9))} ms`,
    worstHealthMs: Math.max(...latencies),
    p99HealthMs: quantile(latencies, 0.99),
    probes: latencies.length,
  };
}

const TOKEN = SPLIT_SECRET_TOKEN;

/** The same prober on an idle server: what the machine's load alone costs /healthz. */
async function baseline(): Promise<CaseFigures> {
  const agent = await startFakeAgent(jsonReply());
  const board = await startBoard(plainRegistry(agent.url));
  try {
    return await probed('idle baseline', board.url, async () => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      return { leaked: 0, note: 'nothing but the prober for 3 s' };
    });
  } finally {
    await board.close();
    await agent.close();
  }
}

async function splitSecret(): Promise<CaseFigures> {
  const first = TOKEN.slice(0, 11);
  const second = TOKEN.slice(11);
  const leaky = await startFakeAgent(
    sseReply({ intervalMs: 100, progress: ['正在生成报表', `调试信息 ${first}`], result: { status: 'completed', output: { rows: 3, debug: { auth: `Bearer ${TOKEN}` } }, message: `${second} 报表已生成。` } }),
  );
  const vault = await startFakeAgent(jsonReply());
  const chatty = await startFakeAgent(sseReply({ intervalMs: 40, progress: ['查询中', '还在查询', '快好了', '马上'], result: { status: 'completed', output: { temp: 21 }, message: '晴，21度。' } }));
  const board = await startBoard(splitSecretRegistry(leaky.url, vault.url, chatty.url), { VAULT_TOKEN: TOKEN });
  try {
    return await probed('split secret', board.url, async () => {
      const alone = await chatOverSse(board.url, '帮我生成报表 report', { sessionId: 'split-1' });
      const between = await chatOverSse(board.url, '帮我生成报表 report，再查一下天气 weather', { sessionId: 'split-2' });
      const wire = JSON.stringify([...alone, ...between]);
      const stored = databaseText(board.dir);
      const leaked = count(wire, TOKEN) + count(wire, `${first}"`) + count(wire, `"${second}`) + count(stored, TOKEN) + count(stored, first);
      return { leaked, note: `2 turns; token in wire ${count(wire, TOKEN)}, halves at the cut ${count(wire, `${first}"`) + count(wire, `"${second}`)}, in SQLite ${count(stored, TOKEN) + count(stored, first)}` };
    });
  } finally {
    await board.close();
    await Promise.all([leaky, vault, chatty].map((agent) => agent.close()));
  }
}

async function fullWidth(): Promise<CaseFigures> {
  const widePhone = '１３５１２３４５６７８';
  const wideEmail = 'ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ';
  const shop = await startFakeAgent(jsonReply({ output: { order: 'OD-1', contact: widePhone }, message: `已下单，联系电话 ${widePhone}` }));
  const board = await startBoard(`version: 1
agents:
  - id: shop_agent
    name: 商城
    description: 下单购物 place an order
    keywords: [下单, 购物, order]
    endpoint: { url: "${shop.url}", retries: 0 }
`);
  try {
    return await probed('full-width', board.url, async () => {
      await chatOverSse(board.url, `帮我下单，我的电话 ${widePhone}，邮箱 ${wideEmail}`, { sessionId: 'wide-1' });
      const stored = databaseText(board.dir);
      const sent = shop.calls.map((call) => call.rawBody).join('\n');
      const inDb = count(stored, widePhone) + count(stored, wideEmail);
      const forwarded = count(sent, widePhone) + count(sent, wideEmail) + count(sent, '13512345678');
      return { leaked: inDb + forwarded, note: `raw in SQLite ${inDb}, sent to an agent that did not declare them ${forwarded}` };
    });
  } finally {
    await board.close();
    await shop.close();
  }
}

async function aliasBomb(): Promise<CaseFigures> {
  const agent = await startFakeAgent(jsonReply());
  const board = await startBoard(plainRegistry(agent.url));
  try {
    return await probed('alias bomb', board.url, async () => {
      const registry = board.switchboard.registry as WatchedRegistry;
      const before = registry.current().version;
      const text = aliasedExampleRegistry(agent.url);
      writeFileSync(board.configPath, text);
      const started = performance.now();
      await registry.reload();
      const ms = Math.round(performance.now() - started);
      const agents = await fetch(`${board.url}/v1/agents`);
      const body = (await agents.json()) as { last_error: { message: string } | null };
      const wentLive = registry.current().version !== before;
      return {
        leaked: (wentLive ? 1 : 0) + (body.last_error ? 0 : 1) + (agents.status === 200 ? 0 : 1),
        note: `file ${(text.length / 1e6).toFixed(2)} MB; refused in ${ms} ms: ${body.last_error?.message.slice(0, 90) ?? 'NOT REFUSED'}`,
      };
    });
  } finally {
    await board.close();
    await agent.close();
  }
}

/** Starts the flooding agents in a child process, so their sending does not share the measured event loop. */
async function startFloodAgents(count: number): Promise<{ urls: string[]; bytes: number; close(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'flood-agents.ts'), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) resolve(text.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`flood agents exited (${code})`)));
  });
  const started = JSON.parse(line) as { urls: string[]; bytes: number };
  return { ...started, close: () => child.kill() };
}

async function floods(): Promise<CaseFigures> {
  const flooders = await startFloodAgents(20);
  const quiet = await startFakeAgent(jsonReply({ output: { temp: 20 }, message: '晴。' }));
  const agents = flooders.urls
    .map(
      (url, index) => `  - id: flood${index}_agent
    name: 洪水${index}
    description: 话很多的服务 chatty service ${index}
    keywords: [flood${index}]
    endpoint: { url: "${url}", protocol: http-sse, retries: 0, timeout_ms: 60000 }
`,
    )
    .join('');
  const board = await startBoard(`version: 1
agents:
${agents}  - id: weather_agent
    name: 天气
    description: 天气 weather
    keywords: [天气, weather]
    endpoint: { url: "${quiet.url}", retries: 0 }
`);
  try {
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);
    const figures = await probed('20 floods', board.url, async () => {
      const started = performance.now();
      const turns = flooders.urls.map((_url, index) => chatOverSse(board.url, `flood${index}`, { sessionId: `flood-${index}`, userId: `u-flood-${index}` }).catch(() => []));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ordinaryStarted = performance.now();
      await chatOverSse(board.url, '天气 weather', { sessionId: 'ordinary', userId: 'u-ordinary' });
      const ordinaryMs = Math.round(performance.now() - ordinaryStarted);
      const results = await Promise.all(turns);
      const unfinished = results.filter((events) => events.at(-1)?.type !== 'done').length;
      return {
        leaked: unfinished,
        note: `20 × ${(flooders.bytes / 1e6).toFixed(1)} MB of progress (agents in a child process); all ended in ${Math.round(performance.now() - started)} ms; an ordinary turn meanwhile ${ordinaryMs} ms; budget ${agentByteBudget.limit} bytes in flight`,
      };
    });
    clearInterval(sampler);
    const rssAfter = process.memoryUsage().rss;
    figures.note += `; RSS ${Math.round(rssBefore / 1e6)} → peak ${Math.round(rssPeak / 1e6)} → after ${Math.round(rssAfter / 1e6)} MB`;
    return figures;
  } finally {
    await board.close();
    await quiet.close();
    flooders.close();
  }
}

async function rateLimit(): Promise<CaseFigures> {
  const agent = await startFakeAgent(jsonReply());
  const board = await startBoard(`version: 1
supervisor:
  rate_limit: { per_user_per_minute: 2, burst: 0 }
agents:
  - id: echo_agent
    name: 回声
    description: 回声 echo
    keywords: [echo]
    endpoint: { url: "${agent.url}", retries: 0 }
`);
  try {
    return await probed('rate limit', board.url, async () => {
      let passed = 0;
      for (let index = 0; index < 10; index++) {
        const response = await fetch(`${board.url}/v1/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer made-up-${index}` },
          body: JSON.stringify({ query: '你好', user_id: 'forger' }),
        });
        await response.arrayBuffer();
        if (response.status === 200) passed++;
      }
      return { leaked: Math.max(0, passed - 2), note: `10 requests with made-up keys, limit 2: ${passed} let through` };
    });
  } finally {
    await board.close();
    await agent.close();
  }
}

async function webhook(): Promise<CaseFigures> {
  const seen: string[] = [];
  const receiver = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    request.resume();
    if (request.url === '/hook') response.writeHead(302, { location: '/elsewhere' }).end();
    else response.writeHead(200).end('{}');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const agent = await startFakeAgent(jsonReply());
  const board = await startBoard(plainRegistry(agent.url));
  try {
    return await probed('webhook', board.url, async () => {
      const sender = createTicketWebhook({ logger: silentLogger, initialDelayMs: 1, maxDelayMs: 2 });
      sender.send(`${url}/hook`, { reason: 'user_request', trace_id: 'abuse' } as EscalationCard);
      await sender.idle();
      await sender.close();
      const followed = seen.filter((line) => line !== 'POST /hook').length;
      const loaded = loadRegistryText(
        `version: 1\nsupervisor:\n  escalation: { webhook_url: "http://169.254.169.254/latest" }\nagents:\n  - id: echo_agent\n    name: 回声\n    description: echo\n    keywords: [echo]\n    endpoint: { url: "http://127.0.0.1:9/invoke" }\n`,
        'agents_config.yaml',
        { env: {} },
      );
      return { leaked: followed + (loaded.ok ? 1 : 0), note: `302 answered; requests to the redirect target ${followed}; metadata-address webhook ${loaded.ok ? 'ACCEPTED' : 'refused'} at load` };
    });
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await board.close();
    await agent.close();
  }
}

function sendRaw(baseUrl: string, text: Buffer, waitMs: number): Promise<{ status: number; json: boolean; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(raw.split(' ')[1] ?? 0), json: /content-type: application\/json/i.test(raw), ms: performance.now() - started });
    });
    socket.write(text);
  });
}

async function edgeBodies(): Promise<CaseFigures> {
  const agent = await startFakeAgent(jsonReply());
  const board = await startBoard(plainRegistry(agent.url));
  try {
    return await probed('edge bodies', board.url, async () => {
      const body = JSON.stringify({ query: 'hello', user_id: 'u1' });
      const head = (headers: string[]) => Buffer.from(`${['POST /v1/chat HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', 'Connection: close', ...headers].join('\r\n')}\r\n\r\n`);
      const br = await sendRaw(board.url, Buffer.concat([head(['Content-Encoding: br', `Content-Length: ${body.length}`]), Buffer.from(body)]), 3000);
      const huge = await sendRaw(board.url, Buffer.concat([head(['Content-Length: 1000000000']), Buffer.from(body)]), 3000);
      // A turn written ahead by a process that was then killed (no lease held), judged by the sweeper.
      const dir = mkdtempSync(join(tmpdir(), 'sb-abuse-killed-'));
      const storage = openSqliteStorage(join(dir, 'switchboard.db'));
      const started = new Date(Date.now() - 60_000);
      await storage.transcript.beginTurn({ turnId: 'turn_killed', userId: 'u1', sessionId: 's-killed', query: 'q', traceId: 't', createdAt: started.toISOString() });
      const sweeper = startTurnSweeper({ storage, logger: silentLogger, leaseTtlMs: 15_000 });
      await sweeper.runOnce();
      sweeper.stop();
      const status = (await storage.transcript.getTurn('turn_killed'))?.status;
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
      const leaked = (br.status >= 400 && br.status < 500 && br.json ? 0 : 1) + (huge.status === 413 && huge.ms < 1000 ? 0 : 1) + (status === 'interrupted' ? 0 : 1);
      return { leaked, note: `br → ${br.status}; declared 1 GB → ${huge.status} in ${Math.round(huge.ms)} ms; killed turn after the sweeper: ${status}` };
    });
  } finally {
    await board.close();
    await agent.close();
  }
}

/** Runs every case and prints one line per case. */
export async function hardeningCases(only?: string): Promise<CaseFigures[]> {
  const all = [baseline, splitSecret, fullWidth, aliasBomb, floods, rateLimit, webhook, edgeBodies];
  const cases = only ? all.filter((run) => run.name === only) : all;
  const figures: CaseFigures[] = [];
  console.log('hardening cases (leaked: count of what got through; /healthz probed every 20 ms during the case)');
  console.log('  case           leaked  healthz-worst-ms  healthz-p99-ms  probes  note');
  for (const run of cases) {
    const result = await run();
    figures.push(result);
    console.log(
      `  ${result.name.padEnd(14)} ${String(result.leaked).padStart(6)}  ${String(Math.round(result.worstHealthMs)).padStart(16)}  ${String(Math.round(result.p99HealthMs)).padStart(14)}  ${String(result.probes).padStart(6)}  ${result.note}`,
    );
  }
  return figures;
}
