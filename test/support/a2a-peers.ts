/**
 * Real A2A agents for tests, built with the SDKs themselves: one on
 * `@a2a-js/sdk` 1.x (A2A v1.0, JSON-RPC or HTTP+JSON) and one on the 0.3 SDK
 * (`a2a-sdk-03`, A2A v0.3 JSON-RPC). Both are the same small weather agent:
 *
 * - without a `city` input it asks for it (input-required, the key named in a
 *   data part, unless `nameKeys: false`, then only the question);
 * - with one it reports progress (a working status with text), adds an
 *   artifact with the forecast as data, and completes with a sentence;
 * - with `hold: true` it stays working until the task is cancelled.
 *
 * Each records the messages it received (with their request headers) and
 * the task ids it was asked to cancel.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import * as legacyServer from 'a2a-sdk-03/server';
import { A2AExpressApp } from 'a2a-sdk-03/server/express';

/** How the peer behaves. */
export interface A2aPeerOptions {
  /** `capabilities.streaming` on its card. Default true. */
  streaming?: boolean;
  /** 1.x only: the binding it serves. Default JSONRPC. */
  binding?: 'JSONRPC' | 'HTTP+JSON';
  /** Ask for a missing city with the key named in a data part (default) or with the question only. */
  nameKeys?: boolean;
  /** Answer with the forecast as a data part too (default), or with text only. */
  replyData?: boolean;
  /** Stay working until cancelled. */
  hold?: boolean;
  /** Skill texts on the card. */
  skill?: { name: string; description: string; examples: string[]; tags: string[] };
  name?: string;
  description?: string;
}

/** One message the peer received. */
export interface ReceivedMessage {
  text: string;
  data: Record<string, unknown>;
  contextId: string;
  messageId: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface A2aPeer {
  /** Base url; the card is at `<url>/.well-known/agent-card.json`. */
  url: string;
  cardUrl: string;
  received: ReceivedMessage[];
  cancelled: string[];
  /** Number of card fetches. */
  cardFetches: number;
  close(): Promise<void>;
}

const DEFAULT_SKILL = {
  name: 'Weather forecast',
  description: 'Tells the weather forecast of a city',
  examples: ['What is the weather in Paris tomorrow?'],
  tags: ['weather', 'forecast'],
};

function forecastOf(city: string): { city: string; forecast: string; high_c: number } {
  return { city, forecast: 'sunny', high_c: 21 };
}

async function listen(app: express.Express): Promise<{ server: Server; base: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A waiter released when the task is cancelled or the peer closes. */
function createHolds() {
  const waiting = new Map<string, () => void>();
  return {
    wait: (taskId: string) => new Promise<void>((resolve) => waiting.set(taskId, resolve)),
    release(taskId: string) {
      waiting.get(taskId)?.();
      waiting.delete(taskId);
    },
    releaseAll() {
      for (const release of waiting.values()) release();
      waiting.clear();
    },
  };
}

/** A peer's record at `base`, empty; closing it releases every held task and stops the server. */
function newPeer(base: string, server: Server, holds: ReturnType<typeof createHolds>): A2aPeer {
  return {
    url: base,
    cardUrl: `${base}/.well-known/agent-card.json`,
    received: [],
    cancelled: [],
    cardFetches: 0,
    async close() {
      holds.releaseAll();
      await closeServer(server);
    },
  };
}

function countCardFetches(peer: { cardFetches: number }): express.RequestHandler {
  return (request, _response, next) => {
    if (request.path.endsWith('agent-card.json')) peer.cardFetches++;
    next();
  };
}

/** A v1.0 agent on `@a2a-js/sdk` 1.x (it also accepts v0.3 clients). */
export async function startA2aPeer(options: A2aPeerOptions = {}): Promise<A2aPeer> {
  const app = express();
  const { server, base } = await listen(app);
  const binding = options.binding ?? 'JSONRPC';
  const path = binding === 'JSONRPC' ? '/a2a/jsonrpc' : '/a2a/rest';
  const skill = options.skill ?? DEFAULT_SKILL;
  const card: AgentCard = {
    name: options.name ?? 'Weather agent',
    description: options.description ?? 'Weather forecasts for any city',
    supportedInterfaces: [
      { url: `${base}${path}`, protocolBinding: binding, tenant: '', protocolVersion: '1.0' },
      { url: `${base}${path}`, protocolBinding: binding, tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'forecast', ...skill, inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
  const holds = createHolds();
  const peer = newPeer(base, server, holds);

  const agentMessage = (context: RequestContext, parts: Part[]): Message => ({
    messageId: `${context.taskId}-${Math.random().toString(36).slice(2)}`,
    contextId: context.contextId,
    taskId: context.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
  const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
  const status = (context: RequestContext, state: TaskState, parts?: Part[]) =>
    AgentEvent.statusUpdate({
      taskId: context.taskId,
      contextId: context.contextId,
      status: { state, message: parts ? agentMessage(context, parts) : undefined, timestamp: new Date().toISOString() },
      metadata: undefined,
    });

  const executor: AgentExecutor = {
    async execute(context, bus) {
      const message = context.userMessage;
      const received = readParts(
        message.parts.map((part) => (part.content?.$case === 'text' ? { text: part.content.value } : part.content?.$case === 'data' ? { data: part.content.value } : {})),
      );
      const headers = (context.context.state.get('headers') ?? {}) as Record<string, string | string[] | undefined>;
      peer.received.push({ ...received, contextId: context.contextId, messageId: message.messageId, headers });
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [message],
          metadata: undefined,
        }),
      );
      const city = typeof received.data.inputs === 'object' ? (received.data.inputs as Record<string, unknown>).city : undefined;
      if (options.hold) {
        bus.publish(status(context, TaskState.TASK_STATE_WORKING, [text('Working on it')]));
        await holds.wait(context.taskId);
        bus.finished();
        return;
      }
      if (typeof city !== 'string' || city === '') {
        const parts = [text('Which city do you mean?')];
        if (options.nameKeys !== false) parts.push(data({ missing_keys: ['city'] }));
        bus.publish(status(context, TaskState.TASK_STATE_INPUT_REQUIRED, parts));
        bus.finished();
        return;
      }
      bus.publish(status(context, TaskState.TASK_STATE_WORKING, [text(`Looking up the weather in ${city}`)]));
      if (options.replyData !== false)
        bus.publish(
        AgentEvent.artifactUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          artifact: { artifactId: 'forecast', name: 'forecast', description: '', parts: [data(forecastOf(city))], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(status(context, TaskState.TASK_STATE_COMPLETED, [text(`Sunny in ${city}, up to 21°C`)]));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      peer.cancelled.push(taskId);
      holds.release(taskId);
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    },
  };

  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(countCardFetches(peer));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  if (binding === 'JSONRPC') app.use(path, express.json(), jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  else app.use(path, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return peer;
}

function readParts(parts: { text?: string; data?: unknown }[]): { text: string; data: Record<string, unknown> } {
  const texts: string[] = [];
  const data: Record<string, unknown> = {};
  for (const part of parts) {
    if (typeof part.text === 'string') texts.push(part.text);
    if (typeof part.data === 'object' && part.data !== null) Object.assign(data, part.data);
  }
  return { text: texts.join('\n'), data };
}

/** A v0.3 agent on `@a2a-js/sdk` 0.3.14: JSON-RPC `message/send` / `message/stream`, the card's `url`. */
export async function startLegacyA2aPeer(options: A2aPeerOptions = {}): Promise<A2aPeer> {
  const app = express();
  const { server, base } = await listen(app);
  const skill = options.skill ?? DEFAULT_SKILL;
  const holds = createHolds();
  const peer = newPeer(base, server, holds);
  const agentMessage = (taskId: string, contextId: string, parts: unknown[]) => ({
    kind: 'message' as const,
    role: 'agent' as const,
    messageId: `${taskId}-${Math.random().toString(36).slice(2)}`,
    taskId,
    contextId,
    parts,
  });
  const executor: legacyServer.AgentExecutor = {
    async execute(context, bus) {
      const { taskId, contextId, userMessage } = context;
      const received = readParts(userMessage.parts.map((part) => (part.kind === 'text' ? { text: part.text } : part.kind === 'data' ? { data: part.data } : {})));
      peer.received.push({ ...received, contextId, messageId: userMessage.messageId, headers: {} });
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [userMessage] });
      const statusEvent = (state: 'working' | 'input-required' | 'completed', parts: unknown[], final: boolean) =>
        ({ kind: 'status-update', taskId, contextId, final, status: { state, timestamp: new Date().toISOString(), message: agentMessage(taskId, contextId, parts) } }) as never;
      const inputs = received.data.inputs as Record<string, unknown> | undefined;
      const city = typeof inputs?.city === 'string' ? inputs.city : '';
      if (options.hold) {
        bus.publish(statusEvent('working', [{ kind: 'text', text: 'Working on it' }], false));
        await holds.wait(taskId);
        bus.finished();
        return;
      }
      if (city === '') {
        const parts: unknown[] = [{ kind: 'text', text: 'Which city do you mean?' }];
        if (options.nameKeys !== false) parts.push({ kind: 'data', data: { missing_keys: ['city'] } });
        bus.publish(statusEvent('input-required', parts, true));
        bus.finished();
        return;
      }
      bus.publish(statusEvent('working', [{ kind: 'text', text: `Looking up the weather in ${city}` }], false));
      if (options.replyData !== false) bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: 'forecast', parts: [{ kind: 'data', data: forecastOf(city) }] } } as never);
      bus.publish(statusEvent('completed', [{ kind: 'text', text: `Sunny in ${city}, up to 21°C` }], true));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      peer.cancelled.push(taskId);
      holds.release(taskId);
      bus.publish({ kind: 'status-update', taskId, contextId: '', final: true, status: { state: 'canceled', timestamp: new Date().toISOString() } } as never);
      bus.finished();
    },
  };
  const card = {
    name: options.name ?? 'Weather agent (v0.3)',
    description: options.description ?? 'Weather forecasts for any city',
    url: `${base}/`,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    version: '0.3.0',
    capabilities: { streaming: options.streaming ?? true },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'forecast', ...skill }],
  };
  const handler = new legacyServer.DefaultRequestHandler(card, new legacyServer.InMemoryTaskStore(), executor);
  app.use(countCardFetches(peer));
  new A2AExpressApp(handler).setupRoutes(app, '');
  return peer;
}
