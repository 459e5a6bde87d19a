/**
 * The fakes of the load benches, in a process of their own so their CPU is
 * not counted as the server's: three sub-agents of the travel turn (hotel,
 * airport transfer, weather; zero latency unless `--agent-ms N`) and an
 * OpenAI-compatible model that answers every call of a turn (the intent and
 * plan call with the three-task plan, the verify call with "sufficient", any
 * other call with the summary; `--model-ms N` before each answer).
 *
 * The peer of bench/vs-peer.ts gets its own tool-calling model
 * (`support/fake-tool-model.ts`, same latency). `GET <control>/stats` answers
 * the calls and prompt characters each model saw since the last read.
 *
 * Prints one JSON line `{ "hotel": url, "limo": url, "flight": url,
 * "weather": url, "model": baseUrl, "peerModel": baseUrl, "control": url }`
 * on stdout, then serves until stdin closes or SIGTERM.
 *
 * Run: `node --import tsx bench/load-fakes.ts [--agent-ms N] [--model-ms N]`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { startFakeToolModel } from './support/fake-tool-model.js';
import { jsonReply, sseReply, startFakeAgent } from '../test/support/fake-agent.js';
import { startFakeOpenAI, type ScriptedReplySpec } from '../test/support/fake-openai.js';
import { TRAVEL_TURN, TRAVEL_SUMMARY, travelPlanReply } from './travel-turn.js';

const { values } = parseArgs({ options: { 'agent-ms': { type: 'string' }, 'model-ms': { type: 'string' } } });
const agentMs = Number(values['agent-ms'] ?? 0);
const modelMs = Number(values['model-ms'] ?? 0);

const hotel = await startFakeAgent(jsonReply({ output: { hotels: [{ name: '北京饭店', price: 880, address: '东长安街33号' }], booking_id: 'HB-1' }, message: '已为您预订北京饭店。', delayMs: agentMs }));
const limo = await startFakeAgent(jsonReply({ output: { booking_id: 'LB-1', driver: '王师傅', pickup_time: '07:00' }, message: '王师傅将在7点接您。', delayMs: agentMs }));
const flight = await startFakeAgent(jsonReply({ output: { flights: [] }, delayMs: agentMs }));
const weather = await startFakeAgent(
  sseReply({ delayMs: agentMs, result: { status: 'completed', output: { city: '北京', forecast: [{ date: TRAVEL_TURN.tomorrow, condition: '晴', high: 8, low: -2 }] }, message: '北京明天晴。' } }),
);
const model = await startFakeOpenAI();
let switchboardStats = { calls: 0, promptChars: 0 };
model.answerAll((request): ScriptedReplySpec => {
  switchboardStats.calls++;
  for (const message of request.body.messages ?? []) switchboardStats.promptChars += message.content.length;
  const schema = request.body.response_format?.json_schema?.name;
  if (schema === 'intent_and_plan') return { ...travelPlanReply(), usage: false, latencyMs: modelMs };
  if (schema === 'verify') return { content: { sufficient: true, retry: [], reason: 'ok' }, usage: false, latencyMs: modelMs };
  return { content: TRAVEL_SUMMARY, usage: false, latencyMs: modelMs };
});

const peerModel = await startFakeToolModel({
  latencyMs: modelMs,
  summary: TRAVEL_SUMMARY,
  toolArguments: {
    book_hotel: { city: '北京', check_in_date: TRAVEL_TURN.tomorrow },
    book_airport_transfer: { airport: '首都机场', pickup_time: '早上7点', date: TRAVEL_TURN.tomorrow },
    get_weather: { city: '北京', date: TRAVEL_TURN.tomorrow },
  },
});
const control = createServer((_incoming, response) => {
  const stats = { switchboardModel: switchboardStats, peerModel: peerModel.takeStats() };
  switchboardStats = { calls: 0, promptChars: 0 };
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));

// Calls are recorded by the fakes; a long run keeps only the last few so memory stays flat.
const trim = setInterval(() => {
  for (const fake of [hotel, limo, flight, weather]) fake.calls.splice(0, Math.max(0, fake.calls.length - 100));
  model.requests.splice(0, Math.max(0, model.requests.length - 100));
}, 1000);

const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
process.stdout.write(
  `${JSON.stringify({ hotel: hotel.url, limo: limo.url, flight: flight.url, weather: weather.url, model: model.baseUrl, peerModel: peerModel.baseUrl, control: controlUrl })}\n`,
);

const stop = async () => {
  clearInterval(trim);
  control.close();
  await Promise.allSettled([hotel.close(), limo.close(), flight.close(), weather.close(), model.close(), peerModel.close()]);
  process.exit(0);
};
process.stdin.on('end', () => void stop());
process.stdin.resume();
process.once('SIGTERM', () => void stop());
