/**
 * The demo's A2A agent: a currency-exchange agent built with `@a2a-js/sdk`
 * (an `AgentExecutor` behind the SDK's `DefaultRequestHandler` and its express
 * handlers), the way a team outside Switchboard would publish one. The root
 * `agents_config.yaml` registers it by its Agent Card alone (`a2a_card`), so
 * `npm start` routes over all three protocols: http-json, http-sse and a2a.
 *
 * It reads the A2A message Switchboard sends (text = the sub-task, data part =
 * `inputs`): without a currency it asks for one (input-required, the key named
 * in a data part); with one it reports progress, then completes with the
 * conversion as text and as a data artifact. Rates are fixed demo values.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { DEFAULT_DEMO_PORTS } from './demo-ports.js';

/** The demo port, matching the root `agents_config.yaml` (`DEMO_EXCHANGE_PORT` moves both). */
export const DEMO_A2A_AGENT_PORT = DEFAULT_DEMO_PORTS.exchange;

/** Yuan per unit of each currency (fixed demo values), by every name the agent accepts. */
const RATES: Readonly<Record<string, { code: string; zh: string; cny: number }>> = {
  美元: { code: 'USD', zh: '美元', cny: 7.2 },
  欧元: { code: 'EUR', zh: '欧元', cny: 7.8 },
  日元: { code: 'JPY', zh: '日元', cny: 0.048 },
  英镑: { code: 'GBP', zh: '英镑', cny: 9.1 },
  港币: { code: 'HKD', zh: '港币', cny: 0.92 },
};
const BY_CODE = Object.fromEntries(Object.values(RATES).map((rate) => [rate.code, rate]));

/** The conversion a message asks for, or the reason it cannot be made. */
export function convert(currency: unknown, text: string): { ok: true; output: Record<string, unknown>; message: string } | { ok: false } {
  const name = typeof currency === 'string' ? currency.trim() : '';
  const rate = RATES[name] ?? BY_CODE[name.toUpperCase()];
  if (!rate) return { ok: false };
  const amount = Number(/(\d+(?:\.\d+)?)/.exec(text)?.[1] ?? 100);
  const cny = Math.round(amount * rate.cny * 100) / 100;
  return {
    ok: true,
    output: { currency: rate.code, amount, rate: rate.cny, cny },
    message: `${amount} ${rate.zh}约合 ${cny} 元人民币（演示汇率 1 ${rate.zh} = ${rate.cny} 元）。`,
  };
}

function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function agentMessage(context: RequestContext, parts: Part[]): Message {
  return { messageId: randomUUID(), contextId: context.contextId, taskId: context.taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function status(context: RequestContext, state: TaskState, parts: Part[]) {
  return AgentEvent.statusUpdate({
    taskId: context.taskId,
    contextId: context.contextId,
    status: { state, message: agentMessage(context, parts), timestamp: new Date().toISOString() },
    metadata: undefined,
  });
}

/** The executor: one message, one conversion. */
function createExchangeExecutor(latencyMs: number): AgentExecutor {
  return {
    async execute(context, bus) {
      const message = context.userMessage;
      const text = message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(' ');
      const data = Object.assign({}, ...message.parts.map((part) => (part.content?.$case === 'data' && typeof part.content.value === 'object' ? part.content.value : {})));
      const inputs = (typeof data.inputs === 'object' && data.inputs !== null ? data.inputs : {}) as Record<string, unknown>;
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
      const result = convert(inputs.currency, text);
      if (!result.ok) {
        bus.publish(status(context, TaskState.TASK_STATE_INPUT_REQUIRED, [textPart('请问要换算哪种外币？'), dataPart({ missing_keys: ['currency'] })]));
        bus.finished();
        return;
      }
      bus.publish(status(context, TaskState.TASK_STATE_WORKING, [textPart('正在查询汇率…')]));
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          artifact: { artifactId: 'conversion', name: 'conversion', description: '', parts: [dataPart(result.output)], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(status(context, TaskState.TASK_STATE_COMPLETED, [textPart(result.message)]));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }),
      );
      bus.finished();
    },
  };
}

/** The Agent Card the demo serves (skills' examples and tags become the registry card's examples and keywords). */
export function exchangeAgentCard(baseUrl: string): AgentCard {
  const url = `${baseUrl}/a2a`;
  return {
    name: '汇率换算',
    description: '外币兑人民币的汇率查询与金额换算（演示汇率）',
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: { organization: 'Switchboard demo', url: baseUrl },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'convert',
        name: '汇率换算',
        description: '把美元、欧元、日元、英镑、港币换算成人民币',
        tags: ['汇率', '换汇', '兑换', '外币', 'exchange rate', 'currency'],
        examples: ['100美元能换多少人民币', '欧元汇率是多少', '500港币是多少人民币', 'how much is 100 USD in yuan'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** A running demo A2A agent. */
export interface DemoA2aAgent {
  /** Base url; the card is at `<url>/.well-known/agent-card.json`. */
  readonly url: string;
  readonly cardUrl: string;
  close(): Promise<void>;
}

/** Starts the exchange agent; rejects, naming the port, if it cannot listen. */
export async function startDemoA2aAgent(options: { host?: string; port?: number; latencyMs?: number } = {}): Promise<DemoA2aAgent> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEMO_A2A_AGENT_PORT;
  const app = express();
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, host, () => resolve(listening));
    listening.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`demo A2A agent cannot listen on ${host}:${port}: ${error.code ?? error.message}`)));
  });
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(exchangeAgentCard(base), new InMemoryTaskStore(), createExchangeExecutor(Math.max(0, options.latencyMs ?? 0)));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  return {
    url: base,
    cardUrl: `${base}/.well-known/agent-card.json`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
