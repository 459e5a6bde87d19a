/**
 * A flood of large replies (8 SSE agents, each sending 3 MB of 24 KB progress
 * events as fast as the socket takes them, 16 turns at once) against a real
 * `serve` process: its RSS grows by less than FLOOD_RSS_GROWTH_MB over its
 * level after warm-up. What a reply may hold is bounded elsewhere (1 MB per
 * event, 8 MB per stream, 64 KiB relayed per agent per turn); here the bytes
 * in flight are: the process-wide budget (256 KiB), counted from the moment
 * undici hands them over, plus per open reply undici's 16 KiB buffer and one
 * socket read (decision 0044). The figure is generous (V8's heap and young
 * generation move by tens of MB on their own); RSS is read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sseReply, startFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import { chatOverSse } from '../support/switchboard-harness.js';

/** The figure this test holds the flood to. */
export const FLOOD_RSS_GROWTH_MB = 96;
const AGENTS = 8;
const TURNS_PER_AGENT = 2;

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

function registry(urls: readonly string[]): string {
  return `version: 1\nagents:\n${urls
    .map(
      (url, index) => `  - id: flood_${index}
    name: 洪水${index}
    description: 大量进度 flood number ${index}
    keywords: [flood${index}]
    endpoint: { url: "${url}", protocol: http-sse, retries: 0, timeout_ms: 60000 }
`,
    )
    .join('')}`;
}

describe.skipIf(process.platform !== 'linux')('a flood of large replies', () => {
  const agents: FakeAgent[] = [];
  let child: ChildProcess | undefined;
  let url = '';
  let dir = '';
  beforeAll(async () => {
    const event = 'x'.repeat(24 * 1024);
    for (let index = 0; index < AGENTS; index += 1) {
      agents.push(await startFakeAgent(sseReply({ progress: Array.from({ length: 128 }, () => event), result: { status: 'completed', output: {}, message: 'done' } })));
    }
    dir = mkdtempSync(join(tmpdir(), 'sb-flood-rss-'));
    writeFileSync(join(dir, 'agents_config.yaml'), registry(agents.map((agent) => agent.url)));
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--config', join(dir, 'agents_config.yaml'), '--port', '0', '--host', '127.0.0.1'], {
      env: { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'flood.db')}`, LLM_BASE_URL: '', LLM_MODEL: '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('serve did not start in 60 s')), 60_000);
      for (const stream of [child!.stdout!, child!.stderr!]) {
        createInterface({ input: stream }).on('line', (line) => {
          const match = /Switchboard listening on (http:\/\/\S+)/.exec(line);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      }
    });
  }, 90_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await Promise.all(agents.map((agent) => agent.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`holds the serving process's RSS growth under ${FLOOD_RSS_GROWTH_MB} MB while ${AGENTS * TURNS_PER_AGENT} turns read ${AGENTS * TURNS_PER_AGENT * 3} MB of progress`, async () => {
    const pid = child!.pid!;
    // Warm-up: module caches, JIT, pools, the heap's first growth.
    for (let index = 0; index < 2; index += 1) await chatOverSse(url, `flood${index} please`, { userId: 'warm', sessionId: `warm-${index}` });
    const baseline = rssMb(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    try {
      const turns = await Promise.all(
        Array.from({ length: AGENTS * TURNS_PER_AGENT }, (_unused, index) => chatOverSse(url, `flood${index % AGENTS} please`, { userId: `u${index}`, sessionId: `flood-${index}` })),
      );
      for (const events of turns) expect(events.at(-1)?.type).toBe('done');
    } finally {
      clearInterval(sampler);
    }
    const growth = peak - baseline;
    console.log(`flood RSS: baseline ${baseline.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, growth ${growth.toFixed(1)} MB (figure ${FLOOD_RSS_GROWTH_MB} MB)`);
    expect(agents.reduce((sum, agent) => sum + agent.calls.length, 0)).toBe(AGENTS * TURNS_PER_AGENT + 2);
    expect(growth).toBeLessThan(FLOOD_RSS_GROWTH_MB);
  }, 180_000);
});
