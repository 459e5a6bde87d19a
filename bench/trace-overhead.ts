/**
 * What tracing costs per turn: process CPU (user + system, from
 * `process.cpuUsage`) and wall time of offline turns against a zero-latency
 * fake sub-agent, all in one process (Switchboard, the fake agent and, with
 * `--mode otel`, an in-process OTLP receiver; their share is the same in
 * every mode but the receiver's). Modes:
 *
 * - `off`: `OTEL_EXPORTER_OTLP_ENDPOINT` unset (the default: span ids only,
 *   for the `traceparent` header; nothing of OpenTelemetry is loaded);
 * - `otel`: the SDK started and exporting over OTLP/HTTP JSON.
 *
 * Run: `npx tsx bench/trace-overhead.ts [--mode off|otel] [--turns 400] [--warmup 60]`.
 * The same script run on a tree from before tracing (mode `off`) gives the
 * before figure: it passes no tracing option there.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { jsonReply, startFakeAgent } from '../test/support/fake-agent.js';
import { sampleRegistry, startTestSwitchboard } from '../test/support/switchboard-harness.js';

/** One measurement. */
export interface TraceOverhead {
  mode: 'off' | 'otel';
  turns: number;
  cpu_ms_per_turn: number;
  wall_ms_per_turn: number;
  exported_bytes: number;
}

/** Swallows OTLP exports (counts spans by bytes received). */
async function startReceiver(): Promise<{ url: string; bytes: () => number; close(): Promise<void> }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bytes: () => bytes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Runs `turns` measured turns (after `warmup`) in one mode and prints the figures as one JSON line. */
export async function measure(mode: 'off' | 'otel', turns = 400, warmup = 60): Promise<TraceOverhead> {
  const hotel = await startFakeAgent(jsonReply({ output: { booking_id: 'HB-1' }, message: '已为您预订北京饭店。' }));
  const receiver = mode === 'otel' ? await startReceiver() : undefined;
  const telemetry = receiver ? await (await import('../src/telemetry/start-otel.js')).startTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, { version: 'bench' }) : undefined;
  const board = await startTestSwitchboard({
    registryYaml: sampleRegistry('agents_config.yaml', { 7101: hotel.url }, { answerCacheTtlS: 0 }),
    ...(telemetry ? { tracing: telemetry.tracing } : {}),
  });
  const turn = async (index: number) => {
    const response = await fetch(`${board.url}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', traceparent: `00-${index.toString(16).padStart(32, 'a')}-00f067aa0ba902b7-01` },
      body: JSON.stringify({ query: '帮我订北京的酒店，明天入住', user_id: `bench-${index % 20}`, session_id: `bench-${index}` }),
    });
    const text = await response.text();
    if (!text.includes('"type":"done"')) throw new Error(`turn ${index} did not finish: ${text.slice(0, 200)}`);
  };
  for (let index = 0; index < warmup; index += 1) await turn(index);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let index = warmup; index < warmup + turns; index += 1) await turn(index);
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await telemetry?.flush();
  const cpuMsPerTurn = (cpu.user + cpu.system) / 1000 / turns;
  const result: TraceOverhead = { mode, turns, cpu_ms_per_turn: Number(cpuMsPerTurn.toFixed(3)), wall_ms_per_turn: Number((wallMs / turns).toFixed(3)), exported_bytes: receiver?.bytes() ?? 0 };
  console.log(JSON.stringify(result));
  await board.close();
  await telemetry?.shutdown();
  await receiver?.close();
  await hotel.close();
  return result;
}

/** `npm run bench`: both modes, one after the other (figures only; the machine's noise is larger than the difference). */
export async function main(): Promise<void> {
  const off = await measure('off', 200, 40);
  const otel = await measure('otel', 200, 40);
  console.log(`tracing: ${off.cpu_ms_per_turn} ms CPU per turn unset, ${otel.cpu_ms_per_turn} ms exporting (×${(otel.cpu_ms_per_turn / off.cpu_ms_per_turn).toFixed(2)})`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { mode: { type: 'string', default: 'off' }, turns: { type: 'string', default: '400' }, warmup: { type: 'string', default: '60' } } });
  await measure(values.mode === 'otel' ? 'otel' : 'off', Number(values.turns), Number(values.warmup));
}
