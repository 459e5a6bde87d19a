/**
 * The abuse probe's cases for overload, buffers and reloads (issue 35, items
 * 3, 4 and 6), run by bench/abuse.ts:
 *
 * - overload: a client offering far more turns than `max_concurrent_turns: 4`
 *   lets through (slow agents, open loop): every answer is a 200 turn or a
 *   503 OVERLOADED with retry-after, no connection is reset, /healthz answers;
 * - flood: 8 SSE agents pour 3 MB of progress each into 16 turns at once: the
 *   process-wide byte budget is never passed by more than one socket read, and
 *   this process's RSS (fakes included) grows by less than 96 MB;
 * - reload: a hot reload parses the registry text once in the whole process.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentByteBudget } from '../src/agents/byte-budget.js';
import { startServer } from '../src/http/index.js';
import { silentLogger } from '../src/logger.js';
import { loadWorkerStats } from '../src/registry/load-worker.js';
import { createRegistry } from '../src/registry/index.js';
import { yamlParseCount } from '../src/registry/yaml-source.js';
import { createSwitchboard } from '../src/switchboard.js';
import { jsonReply, sseReply, startFakeAgent, type FakeAgent } from '../test/support/fake-agent.js';
import { chatOverSse } from '../test/support/switchboard-harness.js';
import { openLoop } from './support/open-loop.js';

/** One case's verdict and what it measured. */
export interface AdmissionCaseResult {
  name: string;
  pass: boolean;
  detail: string;
}

function agentsRegistry(urls: readonly string[], protocol: 'http-json' | 'http-sse', supervisor = ''): string {
  return `version: 1\n${supervisor}agents:\n${urls
    .map(
      (url, index) => `  - id: agent_${index}
    name: 服务${index}
    description: 测试服务 service number ${index}
    keywords: [svc${index}]
    endpoint: { url: "${url}", protocol: ${protocol}, retries: 0, timeout_ms: 60000 }
`,
    )
    .join('')}`;
}

async function withBoard<T>(yaml: string, run: (url: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-abuse-admission-'));
  try {
    const configPath = join(dir, 'agents_config.yaml');
    writeFileSync(configPath, yaml);
    const switchboard = await createSwitchboard({ configPath, databaseUrl: `sqlite:${join(dir, 'switchboard.db')}`, logger: silentLogger, env: {}, watch: false });
    const server = await startServer(switchboard.app, { port: 0, host: '127.0.0.1', streams: switchboard.streams });
    try {
      return await run(server.url);
    } finally {
      await server.close();
      await switchboard.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function overload(): Promise<AdmissionCaseResult> {
  const agent = await startFakeAgent(jsonReply({ output: { ok: true }, message: 'slow', delayMs: 300 }));
  try {
    const figures = await withBoard(agentsRegistry([agent.url], 'http-json', 'supervisor:\n  max_concurrent_turns: 4\n'), (url) =>
      openLoop(url, { rate: 40, seconds: 3, query: 'svc0 please', sessionPrefix: 'abuse-overload' }),
    );
    const pass = figures.failed === 0 && figures.otherHttp === 0 && figures.refused > 0 && figures.refusedWithoutRetryAfter === 0 && figures.healthFailures === 0;
    return {
      name: 'overload (max_concurrent_turns 4, 40 turns/s for 3 s)',
      pass,
      detail: `admitted ${figures.admitted}, 503 OVERLOADED ${figures.refused} (without retry-after ${figures.refusedWithoutRetryAfter}), other ${figures.otherHttp}, reset/failed ${figures.failed}${figures.failedSample ? ` (${figures.failedSample})` : ''}; admitted p99 ${figures.admittedP99Ms} ms; /healthz p99 ${figures.healthP99Ms} ms, /readyz saturated ${figures.readySaturated}/${figures.readyProbes}`,
    };
  } finally {
    await agent.close();
  }
}

async function flood(): Promise<AdmissionCaseResult> {
  const event = 'x'.repeat(24 * 1024);
  const agents: FakeAgent[] = [];
  for (let index = 0; index < 8; index += 1) {
    agents.push(await startFakeAgent(sseReply({ progress: Array.from({ length: 128 }, () => event), result: { status: 'completed', output: {}, message: 'done' } })));
  }
  try {
    return await withBoard(agentsRegistry(agents.map((agent) => agent.url), 'http-sse'), async (url) => {
      await chatOverSse(url, 'svc0 please', { userId: 'warm', sessionId: 'warm' });
      const baseline = process.memoryUsage.rss();
      let peakRss = baseline;
      let peakBudget = 0;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
        peakBudget = Math.max(peakBudget, agentByteBudget.inFlight);
      }, 5);
      let done = 0;
      try {
        const turns = await Promise.all(Array.from({ length: 16 }, (_unused, index) => chatOverSse(url, `svc${index % 8} please`, { userId: `u${index}`, sessionId: `flood-${index}` })));
        done = turns.filter((events) => events.at(-1)?.type === 'done').length;
      } finally {
        clearInterval(sampler);
      }
      const growthMb = (peakRss - baseline) / 2 ** 20;
      const overBudget = peakBudget - agentByteBudget.limit;
      const pass = done === 16 && growthMb < 96 && overBudget <= 64 * 1024;
      return {
        name: 'flood (8 SSE agents × 3 MB, 16 turns at once)',
        pass,
        detail: `turns done ${done}/16; RSS growth ${growthMb.toFixed(1)} MB (limit 96, fakes in this process included); budget peak ${Math.round(peakBudget / 1024)} KiB of ${agentByteBudget.limit / 1024} KiB`,
      };
    });
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
}

async function reloadParsesOnce(): Promise<AdmissionCaseResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-abuse-reload-'));
  const path = join(dir, 'agents_config.yaml');
  writeFileSync(path, agentsRegistry(['http://127.0.0.1:9/invoke'], 'http-json'));
  const registry = await createRegistry({ path, logger: silentLogger, env: {}, watch: false, reloadTimeoutMs: 60_000 });
  try {
    writeFileSync(path, agentsRegistry(['http://127.0.0.1:9/invoke', 'http://127.0.0.1:10/invoke'], 'http-json'));
    const main = yamlParseCount();
    const worker = loadWorkerStats().parses;
    await registry.reload();
    const parses = { main: yamlParseCount() - main, worker: loadWorkerStats().parses - worker };
    const applied = registry.current().agents.length === 2;
    return { name: 'reload parses once', pass: applied && parses.main + parses.worker === 1, detail: `applied ${applied}; parses on the main thread ${parses.main}, in the worker ${parses.worker}` };
  } finally {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the three cases, printing one line each. */
export async function admissionCases(): Promise<AdmissionCaseResult[]> {
  const results: AdmissionCaseResult[] = [];
  for (const run of [overload, flood, reloadParsesOnce]) {
    const result = await run();
    console.log(`  ${result.pass ? 'ok  ' : 'FAIL'} ${result.name}: ${result.detail}`);
    results.push(result);
  }
  return results;
}
