/**
 * The peer's side of the fake model: an OpenAI-compatible server that plays a
 * tool-calling supervisor and its ReAct sub-agents through the travel turn.
 * A request offering `transfer_to_*` tools is the supervisor's: it hands off
 * to the next expert not yet called (hotel, airport transfer, weather, one at
 * a time, as the library runs them), then answers with the summary. A request
 * offering one work tool is a sub-agent's: it calls its tool, then answers
 * with the tool's result. Counts calls and prompt characters.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: { function: { name: string } }[];
}

interface WireRequest {
  messages: WireMessage[];
  tools?: { function: { name: string } }[];
}

export interface FakeToolModel {
  baseUrl: string;
  /** Calls and prompt characters since the last call, then reset. */
  takeStats(): { calls: number; promptChars: number };
  close(): Promise<void>;
}

const EXPERTS = ['hotel_expert', 'limo_expert', 'weather_expert'];

export async function startFakeToolModel(options: { latencyMs: number; summary: string; toolArguments: Record<string, Record<string, unknown>> }): Promise<FakeToolModel> {
  let calls = 0;
  let promptChars = 0;
  let serial = 0;
  const decide = (request: WireRequest): { content: string; tool_calls?: unknown[] } => {
    const tools = (request.tools ?? []).map((tool) => tool.function.name);
    const call = (name: string, args: Record<string, unknown>) => ({
      content: '',
      tool_calls: [{ id: `call_${++serial}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    if (tools.some((name) => name.startsWith('transfer_to_'))) {
      const handedOff = new Set(request.messages.flatMap((message) => message.tool_calls?.map((tool) => tool.function.name) ?? []));
      const next = EXPERTS.find((expert) => !handedOff.has(`transfer_to_${expert}`) && tools.includes(`transfer_to_${expert}`));
      return next ? call(`transfer_to_${next}`, {}) : { content: options.summary };
    }
    // The supervisor's handoff arrives as a tool message too: only the result of the agent's own tool ends its loop.
    const tool = tools[0];
    const last = request.messages.at(-1);
    const lastCall = request.messages.findLast((message) => message.role === 'assistant' && message.tool_calls?.length)?.tool_calls?.[0]?.function.name;
    if (last?.role === 'tool' && lastCall === tool) return { content: last.content ?? '' };
    return tool ? call(tool, options.toolArguments[tool] ?? {}) : { content: options.summary };
  };
  const server: Server = createServer((incoming, response) => {
    let raw = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => (raw += chunk));
    incoming.on('end', () => {
      const request = JSON.parse(raw) as WireRequest;
      calls++;
      for (const message of request.messages) promptChars += (message.content ?? '').length;
      const message = { role: 'assistant', ...decide(request) };
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ id: `cmpl_${serial}`, object: 'chat.completion', model: 'fake', choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }] }));
      }, options.latencyMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    takeStats() {
      const stats = { calls, promptChars };
      calls = 0;
      promptChars = 0;
      return stats;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
