/**
 * CPU per outgoing call: what the supervisor's process spends to send one
 * sub-agent call (`http-json` and `http-sse`, through the agent client) and
 * one model call (plain and streamed, through the model gateway), with the
 * fakes of bench/load.ts (zero latency) in another process. The calls are
 * made one after another from a process of their own, whose CPU time
 * (`process.cpuUsage()`) is divided by the calls; the figure includes the
 * client's own work around the request (headers, timers, reply checks).
 *
 * `--baseline DIR` runs the same calls with another checkout's client and
 * gateway (e.g. `git archive <commit> | tar -x -C DIR`, with its
 * node_modules), in rounds alternating with this checkout's, so both see the
 * same machine; medians over the rounds are printed.
 *
 * Run: `npx tsx bench/outgoing-calls.ts [--calls N] [--rounds N] [--baseline DIR]`.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startNodeProcess } from './support/processes.js';

type Kind = 'agent http-json' | 'agent http-sse' | 'model plain' | 'model streamed';
const KINDS: Kind[] = ['agent http-json', 'agent http-sse', 'model plain', 'model streamed'];

interface Fakes {
  hotel: string;
  weather: string;
  model: string;
}

/** Runs in the child: `calls` calls of each kind with `checkout`'s modules, prints `{ kind: cpu ms per call }`. */
async function child(checkout: string, fakes: Fakes, calls: number): Promise<void> {
  const load = (path: string) => import(pathToFileURL(resolve(checkout, path)).href);
  const { createAgentClient } = await load('src/agents/agent-client.ts');
  const { fakeAgentCard } = await load('test/support/fake-agent.ts');
  const { createLlmGateway } = await load('src/llm/openai-gateway.ts');
  const { silentLogger } = await load('src/logger.ts');
  const client = createAgentClient();
  const gateway = createLlmGateway({ baseUrl: fakes.model, model: 'fake-main', logger: silentLogger, apiKey: 'bench' });
  const body = { task_id: 't', message: '帮我订明天北京的酒店', inputs: { city: '北京' }, user_id: 'u1', thread_id: 's1', trace_id: 'bench', upstream: {} };
  const messages = [
    { role: 'system', content: 'You write the answer of a travel assistant.' },
    { role: 'user', content: '帮我订明天北京的酒店，安排接机，再看看天气' },
  ];
  const hotel = fakeAgentCard({ id: 'hotel', url: fakes.hotel });
  const weather = fakeAgentCard({ id: 'weather', url: fakes.weather, protocol: 'http-sse' });
  const run: Record<Kind, () => Promise<unknown>> = {
    'agent http-json': async () => expectOk(await client.call(hotel, body)),
    'agent http-sse': async () => expectOk(await client.call(weather, body)),
    'model plain': () => gateway.complete({ purpose: 'answer', tier: 'main', messages }),
    'model streamed': () => gateway.complete({ purpose: 'answer', tier: 'main', messages, onToken: () => {} }),
  };
  const figures: Partial<Record<Kind, number>> = {};
  for (const kind of KINDS) {
    for (let index = 0; index < Math.min(200, calls); index++) await run[kind]();
    const start = process.cpuUsage();
    for (let index = 0; index < calls; index++) await run[kind]();
    const used = process.cpuUsage(start);
    figures[kind] = (used.user + used.system) / 1000 / calls;
  }
  console.log(JSON.stringify(figures));
  process.exit(0);
}

function expectOk(outcome: { ok: boolean; reason?: string }): void {
  if (!outcome.ok) throw new Error(`a sub-agent call failed: ${outcome.reason}`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { calls: { type: 'string' }, rounds: { type: 'string' }, baseline: { type: 'string' }, child: { type: 'string' }, fakes: { type: 'string' } },
  });
  const calls = Number(values.calls ?? 1000);
  if (values.child) return child(values.child, JSON.parse(values.fakes!) as Fakes, calls);
  const rounds = Number(values.rounds ?? 3);
  const fakes = await startNodeProcess('bench/load-fakes.ts', [], /^\{/);
  const checkouts: [string, string][] = [['this checkout', '.']];
  if (values.baseline) checkouts.push(['baseline', values.baseline]);
  const results = new Map<string, Record<Kind, number>[]>(checkouts.map(([name]) => [name, []]));
  const loads: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, checkout] of checkouts) {
        loads.push(loadavg()[0]!);
        const output = execFileSync(process.execPath, ['--import', 'tsx', 'bench/outgoing-calls.ts', '--child', checkout, '--fakes', fakes.readyLine, '--calls', String(calls)], {
          encoding: 'utf8',
        });
        results.get(name)!.push(JSON.parse(output.trim().split('\n').at(-1)!) as Record<Kind, number>);
      }
    }
  } finally {
    await fakes.stop();
  }
  loads.push(loadavg()[0]!);
  console.log(`CPU ms per outgoing call, median of ${rounds} rounds of ${calls} calls each (load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)})`);
  console.log(['call'.padEnd(16), ...checkouts.map(([name]) => name.padStart(14))].join(' '));
  for (const kind of KINDS) {
    const row = checkouts.map(([name]) => median(results.get(name)!.map((figures) => figures[kind])).toFixed(3).padStart(14));
    console.log([kind.padEnd(16), ...row].join(' '));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
