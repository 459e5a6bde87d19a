/**
 * The fakes of the load benches, in a process of their own so their CPU is
 * not counted as the server's: three sub-agents of the travel turn (hotel,
 * airport transfer, weather; zero latency unless `--agent-ms N`) and an
 * OpenAI-compatible model that answers every call of a turn (the intent and
 * plan call with the three-task plan, the verify call with "sufficient", any
 * other call with the summary; `--model-ms N` before each answer).
 *
 * Prints one JSON line `{ "hotel": url, "limo": url, "flight": url,
 * "weather": url, "model": baseUrl }` on stdout, then serves until stdin
 * closes or SIGTERM.
 *
 * Run: `node --import tsx bench/load-fakes.ts [--agent-ms N] [--model-ms N]`.
 */
import { parseArgs } from 'node:util';
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
model.answerAll((request): ScriptedReplySpec => {
  const schema = request.body.response_format?.json_schema?.name;
  if (schema === 'intent_and_plan') return { ...travelPlanReply(), usage: false, latencyMs: modelMs };
  if (schema === 'verify') return { content: { sufficient: true, retry: [], reason: 'ok' }, usage: false, latencyMs: modelMs };
  return { content: TRAVEL_SUMMARY, usage: false, latencyMs: modelMs };
});

// Calls are recorded by the fakes; a long run keeps only the last few so memory stays flat.
const trim = setInterval(() => {
  for (const fake of [hotel, limo, flight, weather]) fake.calls.splice(0, Math.max(0, fake.calls.length - 100));
  model.requests.splice(0, Math.max(0, model.requests.length - 100));
}, 1000);

process.stdout.write(`${JSON.stringify({ hotel: hotel.url, limo: limo.url, flight: flight.url, weather: weather.url, model: model.baseUrl })}\n`);

const stop = async () => {
  clearInterval(trim);
  await Promise.allSettled([hotel.close(), limo.close(), flight.close(), weather.close(), model.close()]);
  process.exit(0);
};
process.stdin.on('end', () => void stop());
process.stdin.resume();
process.once('SIGTERM', () => void stop());
