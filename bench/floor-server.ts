/**
 * The floor of the load bench: the least a server can do for one travel turn.
 * Plain `node:http`, no framework, no storage: it reads the same chat request,
 * makes the same sub-agent calls over keep-alive connections (hotel and
 * weather at once, the airport transfer after the hotel), in LLM mode the same
 * two model calls (intent and plan before the agents, the answer after), and
 * writes the same SSE events at the same sizes, one write per event.
 *
 * The event list (stage and serialised size of each) is read from `--shape`,
 * a JSON file the bench writes from a real Switchboard turn.
 *
 * `GET /stats` answers the event-loop delay percentiles since the last call
 * (ms, resolution 1 ms) and resets them.
 *
 * Run: `node --import tsx bench/floor-server.ts --fakes '<json of load-fakes>' --shape F [--llm]`;
 * prints `listening <url>` on stdout.
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

export interface ShapeEvent {
  stage: string;
  bytes: number;
}

const { values } = parseArgs({ options: { fakes: { type: 'string' }, shape: { type: 'string' }, llm: { type: 'boolean' } } });
const fakes = JSON.parse(values.fakes ?? '{}') as Record<string, string>;
const shape = JSON.parse(readFileSync(values.shape ?? '', 'utf8')) as ShapeEvent[];
const llm = values.llm === true;
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const firstAgentStart = shape.findIndex((event) => event.stage === 'agent_start');
const lastAgentEnd = shape.findLastIndex((event) => event.stage === 'agent_done' || event.stage === 'agent_failed');
const before = shape.slice(0, Math.max(0, firstAgentStart));
const during = firstAgentStart < 0 ? [] : shape.slice(firstAgentStart, lastAgentEnd + 1);
const after = shape.slice(lastAgentEnd + 1);

/**
 * A keep-alive socket the fake closed just as it was reused resets; like
 * undici (which Switchboard's own calls use), the request is sent once more.
 */
function call(url: string, body: string): Promise<string> {
  return callOnce(url, body).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET') throw error;
    return callOnce(url, body);
  });
}

function callOnce(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const SYSTEM_PROMPT = 'x'.repeat(3000);

async function model(schema: string | undefined, query: string): Promise<string> {
  const body = JSON.stringify({
    model: 'fake-main',
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: query },
    ],
    ...(schema ? { response_format: { type: 'json_schema', json_schema: { name: schema, schema: { type: 'object' } } } } : {}),
  });
  const reply = JSON.parse(await call(`${fakes.model}/chat/completions`, body)) as { choices: { message: { content: string } }[] };
  return reply.choices[0]!.message.content;
}

function agentCall(url: string, taskId: string, inputs: Record<string, unknown>, query: string): Promise<unknown> {
  return call(url, JSON.stringify({ task_id: taskId, session_id: 's', trace_id: randomUUID(), query, inputs })).then((text) => {
    // The weather agent answers in SSE; its last data line is the result.
    if (text.startsWith('{')) return JSON.parse(text) as unknown;
    const data = text.split('\n').filter((line) => line.startsWith('data:'));
    return JSON.parse(data.at(-1)!.slice(5)) as unknown;
  });
}

function frame(turnId: string, seq: number, event: ShapeEvent): string {
  const done = event.stage === 'done';
  const base = {
    type: done ? 'done' : 'content',
    content: '',
    agent_id: 'supervisor',
    is_thinking: false,
    session_id: 's',
    metadata: { stage: event.stage, seq, turn_id: turnId, ...(done ? { state: { outcome: 'completed' } } : {}) },
  };
  const empty = JSON.stringify(base).length;
  base.content = 'x'.repeat(Math.max(0, event.bytes - empty));
  return `id: ${turnId}:${seq}\ndata: ${JSON.stringify(base)}\n\n`;
}

async function turn(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
  let raw = '';
  incoming.setEncoding('utf8');
  for await (const chunk of incoming) raw += chunk as string;
  const body = JSON.parse(raw) as { query: string };
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  response.socket?.setNoDelay(true);
  const turnId = `turn_${randomUUID().replaceAll('-', '')}`;
  let seq = 0;
  const write = (events: ShapeEvent[]) => {
    for (const event of events) response.write(frame(turnId, ++seq, event));
  };
  if (llm) JSON.parse(await model('intent_and_plan', body.query));
  write(before);
  const starts = during.filter((event) => event.stage === 'agent_start');
  const rest = during.filter((event) => event.stage !== 'agent_start');
  write(starts);
  const hotel = agentCall(fakes.hotel!, 'task_1', { city: '北京', check_in_date: 'tomorrow' }, body.query);
  const weather = agentCall(fakes.weather!, 'task_3', { city: '北京', date: 'tomorrow' }, body.query);
  // Observed now, awaited below: a failure while the hotel call runs is the turn's, not an unhandled rejection.
  weather.catch(() => undefined);
  await hotel;
  const limo = agentCall(fakes.limo!, 'task_2', { airport: '首都机场', pickup_time: '早上7点' }, body.query);
  await Promise.all([weather, limo]);
  write(rest);
  if (llm) await model(undefined, body.query);
  write(after);
  response.end();
}

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

const server = createServer((incoming, response) => {
  if (incoming.method === 'GET' && incoming.url === '/stats') {
    const stats = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
    delay.reset();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  turn(incoming, response).catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500);
    response.end(String(error));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
