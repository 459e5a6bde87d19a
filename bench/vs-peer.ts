/**
 * Switchboard against `@langchain/langgraph-supervisor` (library defaults: a
 * tool-calling supervisor handing off to three ReAct sub-agents), on the same
 * fakes and the same three-intent travel turn, interleaved run by run.
 *
 * The fakes run in another process (bench/load-fakes.ts): the three sub-agents
 * both systems call over HTTP, Switchboard's model (intent and plan, answer)
 * and the peer's tool-calling model. Two phases:
 *   (1) fixed latency, 300 ms per model call and 1000 ms per sub-agent: wall
 *       time, model calls and prompt characters per turn, and Switchboard's
 *       bound (its model calls × 300 ms + the hotel → transfer path 2 × 1000 ms);
 *   (2) zero latency: wall time and CPU ms per turn of this process (both run
 *       here; Switchboard's figure includes its HTTP server and the SSE
 *       client reading it, the peer's has no HTTP layer at all).
 * Every Switchboard run is a fresh process-local instance warmed with another
 * wording of the turn, so its intent cache never answers the measured turn.
 *
 * Run: `npx tsx bench/vs-peer.ts [--quick]`. `bench/run-all.ts` imports `main()`.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createSupervisor } from '@langchain/langgraph-supervisor';
import { createLlmGateway } from '../src/llm/index.js';
import { silentLogger } from '../src/logger.js';
import { sampleRegistry, startTestSwitchboard } from '../test/support/switchboard-harness.js';
import { OpenAiChatModel } from './support/openai-chat-model.js';
import { startNodeProcess, type BenchProcess } from './support/processes.js';
import { TRAVEL_TURN } from './travel-turn.js';

const MODEL_MS = 300;
const AGENT_MS = 1000;

interface Fakes {
  process: BenchProcess;
  urls: Record<string, string>;
  stats(): Promise<{ switchboardModel: { calls: number; promptChars: number }; peerModel: { calls: number; promptChars: number } }>;
}

async function startFakes(agentMs: number, modelMs: number): Promise<Fakes> {
  const child = await startNodeProcess('bench/load-fakes.ts', ['--agent-ms', String(agentMs), '--model-ms', String(modelMs)], /^\{/);
  const urls = JSON.parse(child.readyLine) as Record<string, string>;
  return {
    process: child,
    urls,
    stats: async () => (await (await fetch(`${urls.control}/stats`)).json()) as Awaited<ReturnType<Fakes['stats']>>,
  };
}

async function postAgent(url: string, taskId: string, inputs: Record<string, unknown>): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task_id: taskId, inputs }) });
  return response.text();
}

/** The peer, built once: library defaults, one tool per sub-agent calling the same fake agent. */
function buildPeer(urls: Record<string, string>) {
  const model = new OpenAiChatModel({ baseUrl: urls.peerModel!, model: 'fake-main' });
  const expert = (name: string, toolName: string, description: string, url: string) =>
    createReactAgent({
      llm: model,
      name,
      prompt: `You are the ${description} expert. Use your tool to do what the user asks, then report the result.`,
      tools: [
        tool(async (inputs: Record<string, unknown>) => postAgent(url, toolName, inputs), {
          name: toolName,
          description,
          schema: { type: 'object', properties: { city: { type: 'string' }, date: { type: 'string' }, check_in_date: { type: 'string' }, airport: { type: 'string' }, pickup_time: { type: 'string' } } },
        }),
      ],
    });
  const agents = [
    expert('hotel_expert', 'book_hotel', 'hotel booking', urls.hotel!),
    expert('limo_expert', 'book_airport_transfer', 'airport transfer booking', urls.limo!),
    expert('weather_expert', 'get_weather', 'weather forecast', urls.weather!),
  ];
  return createSupervisor({
    agents,
    llm: model,
    prompt: 'You are a travel supervisor managing a hotel expert, an airport transfer expert and a weather expert. Hand each part of the request to its expert, then answer the user.',
  }).compile();
}

interface Run {
  wallMs: number;
  cpuMs: number;
  calls: number;
  promptChars: number;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function measure(body: () => Promise<void>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await body();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function peerRun(peer: ReturnType<typeof buildPeer>, fakes: Fakes): Promise<Run> {
  await fakes.stats();
  let answer = '';
  const timing = await measure(async () => {
    const result = await peer.invoke({ messages: [new HumanMessage(TRAVEL_TURN.query)] });
    answer = String(result.messages.at(-1)?.content ?? '');
  });
  if (!answer.includes('北京饭店')) throw new Error(`the peer did not answer the turn: ${answer.slice(0, 200)}`);
  const stats = (await fakes.stats()).peerModel;
  return { ...timing, calls: stats.calls, promptChars: stats.promptChars };
}

async function switchboardRun(fakes: Fakes): Promise<Run> {
  const gateway = createLlmGateway({ baseUrl: fakes.urls.model!, model: 'fake-main', smallModel: 'fake-small', logger: silentLogger, breaker: false });
  const registryYaml = sampleRegistry('agents_config.yaml', { 7101: fakes.urls.hotel!, 7102: fakes.urls.limo!, 7103: fakes.urls.flight!, 7104: fakes.urls.weather! });
  const board = await startTestSwitchboard({ registryYaml, llm: gateway });
  try {
    // Another wording of the same turn warms this instance; the measured one misses its intent cache.
    await board.chat(`${TRAVEL_TURN.query}。`, { sessionId: 'warm', userId: 'warm' });
    await fakes.stats();
    let outcome: unknown;
    const timing = await measure(async () => {
      const events = await board.chat(TRAVEL_TURN.query, { sessionId: 'measured', userId: 'measured' });
      outcome = events.at(-1)?.metadata.state?.outcome;
    });
    if (outcome !== 'completed') throw new Error(`the Switchboard turn ended ${String(outcome)}`);
    const stats = (await fakes.stats()).switchboardModel;
    return { ...timing, calls: stats.calls, promptChars: stats.promptChars };
  } finally {
    await board.close();
    gateway.close();
  }
}

export interface PeerPhase {
  name: string;
  peer: Run[];
  switchboard: Run[];
}

function summarise(runs: readonly Run[]) {
  return { wallMs: round(median(runs.map((run) => run.wallMs))), cpuMs: round(median(runs.map((run) => run.cpuMs)), 2), calls: median(runs.map((run) => run.calls)), promptChars: median(runs.map((run) => run.promptChars)) };
}

async function runPhase(name: string, agentMs: number, modelMs: number, runs: number): Promise<PeerPhase> {
  const fakes = await startFakes(agentMs, modelMs);
  try {
    const peer = buildPeer(fakes.urls);
    // One unmeasured turn each (module and connection warm-up), then interleaved runs.
    await peerRun(peer, fakes);
    await switchboardRun(fakes);
    const phase: PeerPhase = { name, peer: [], switchboard: [] };
    for (let index = 0; index < runs; index++) {
      phase.peer.push(await peerRun(peer, fakes));
      phase.switchboard.push(await switchboardRun(fakes));
    }
    return phase;
  } finally {
    await fakes.process.stop();
  }
}

/** The peer alone on the fixed-latency fakes (for benches that compare with it): median wall time and model calls. */
export async function measurePeer(runs: number): Promise<{ medianMs: number; calls: number; runs: number }> {
  const fakes = await startFakes(AGENT_MS, MODEL_MS);
  try {
    const peer = buildPeer(fakes.urls);
    await peerRun(peer, fakes);
    const measured: Run[] = [];
    for (let index = 0; index < runs; index++) measured.push(await peerRun(peer, fakes));
    const figures = summarise(measured);
    return { medianMs: figures.wallMs, calls: figures.calls, runs };
  } finally {
    await fakes.process.stop();
  }
}

export interface VsPeerResult {
  phases: PeerPhase[];
  /** Switchboard's median wall time over its latency bound (fixed-latency phase). */
  boundRatio: number;
  /** The peer on the fixed-latency fakes. */
  peer: { medianMs: number; calls: number; runs: number };
  pass: boolean;
}

export async function main(options: { quick?: boolean } = {}): Promise<VsPeerResult> {
  const latency = await runPhase(`model ${MODEL_MS} ms/call, sub-agents ${AGENT_MS} ms`, AGENT_MS, MODEL_MS, options.quick ? 3 : 5);
  const zero = await runPhase('zero-latency fakes', 0, 0, options.quick ? 8 : 20);
  console.log('Switchboard vs @langchain/langgraph-supervisor (library defaults), the three-intent travel turn, same fakes, interleaved; medians');
  const rows = [];
  for (const phase of [latency, zero]) {
    const peer = summarise(phase.peer);
    const board = summarise(phase.switchboard);
    rows.push(
      { phase: phase.name, system: 'langgraph-supervisor', runs: phase.peer.length, wall_ms: peer.wallMs, cpu_ms: peer.cpuMs, model_calls: peer.calls, prompt_chars: peer.promptChars },
      { phase: phase.name, system: 'switchboard', runs: phase.switchboard.length, wall_ms: board.wallMs, cpu_ms: board.cpuMs, model_calls: board.calls, prompt_chars: board.promptChars },
      {
        phase: phase.name,
        system: 'ratio peer / switchboard',
        runs: '',
        wall_ms: round(peer.wallMs / board.wallMs, 2),
        cpu_ms: round(peer.cpuMs / board.cpuMs, 2),
        model_calls: round(peer.calls / Math.max(1, board.calls), 2),
        prompt_chars: round(peer.promptChars / Math.max(1, board.promptChars), 2),
      },
    );
  }
  console.table(rows);
  const board = summarise(latency.switchboard);
  const bound = board.calls * MODEL_MS + 2 * AGENT_MS;
  const boundRatio = round(board.wallMs / bound, 3);
  console.log(`Switchboard's bound with its ${board.calls} model calls: ${bound} ms (2 calls: ${2 * MODEL_MS + 2 * AGENT_MS} ms); median ${board.wallMs} ms = ${boundRatio}× (target ≤ 1.02× of the 2-call bound, 2 model calls)`);
  const peer = summarise(latency.peer);
  const pass = board.wallMs < peer.wallMs && board.calls < peer.calls;
  return { phases: [latency, zero], boundRatio, peer: { medianMs: peer.wallMs, calls: peer.calls, runs: latency.peer.length }, pass };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  const result = await main({ quick: values.quick });
  process.exitCode = result.pass ? 0 : 1;
}
