/**
 * Switchboard as an A2A agent (docs/api.md#routes). The protocol is the
 * SDK's (`DefaultRequestHandler` with its JSON-RPC transport, v0.3 names
 * through `legacyCompat`); this file holds what is ours: the Agent Card built
 * from the live registry (one skill per enabled agent) and the executor that
 * runs one ordinary turn per A2A message and reports it as an A2A task.
 *
 * - `contextId` is the session; the user is `metadata.user_id` of the message
 *   (or of the request), else the API key's tenant when keys are on, else one
 *   derived from the context, so every turn of a context has the same owner.
 * - Missing keys end the task in input-required with the keys, descriptions
 *   and widget ids in a data part (`semantic_info`, plus the flat
 *   `missing_keys`); a held side effect does too, with `confirmation`. The
 *   next message in the same context is the next turn of that session, so it
 *   completes the request. A data part `{ confirm: [...] }` / `{ reject: [...] }`
 *   confirms or rejects held tasks, as the chat body fields do.
 * - The same A2A `messageId` (same caller) never starts a second turn: the
 *   first turn's stored events are replayed instead.
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type AgentCard as A2aCard, type Message, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type User } from '@a2a-js/sdk/server';
import type { Request } from 'express';
import { isValidId } from '../id-patterns.js';
import { answerOf, type ResponseState } from '../events/index.js';
import type { TurnFeed, TurnIdempotency, TurnRequest, TurnRunner } from '../turn/index.js';
import type { Logger } from '../logger.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { DEFAULT_TENANT, ownerKey } from '../store/index.js';
import { StoredTaskFollower } from './a2a-task-store.js';
import { callerTenant } from './auth.js';
import { delegationDepthOf } from './delegation-depth.js';
import { requireTraceId } from './trace-id.js';
import { readTurnEvents } from './turn-outcome.js';

/** The caller of one A2A request, as the HTTP layer saw it (API key tenant, depth, trace id). */
export class A2aCaller implements User {
  constructor(
    readonly tenant: string,
    readonly keysOn: boolean,
    readonly delegationDepth: number,
    readonly traceId: string,
  ) {}
  get isAuthenticated(): boolean {
    return this.keysOn;
  }
  get userName(): string {
    return this.tenant;
  }
}

/** Builds the caller from a request that passed auth and the depth guard. */
export function a2aCallerOf(request: Request, keysOn: boolean): A2aCaller {
  const response = request.res!;
  return new A2aCaller(callerTenant(response), keysOn, delegationDepthOf(response), requireTraceId(response));
}

/** The Agent Card of Switchboard for one snapshot of the registry. */
export function switchboardAgentCard(snapshot: RegistrySnapshot, baseUrl: string, keysOn: boolean): A2aCard {
  const url = `${baseUrl.replace(/\/+$/, '')}/a2a`;
  return {
    name: 'Switchboard',
    description: 'A supervisor that understands a request, splits it into tasks, routes each to the right agent and answers with one summary.',
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: snapshot.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: keysOn
      ? { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'An API key of SWITCHBOARD_API_KEYS', scheme: 'Bearer', bearerFormat: '' } } } }
      : {},
    securityRequirements: keysOn ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: snapshot.enabledAgents.map((card) => ({
      id: card.id,
      name: card.name,
      description: card.description,
      tags: [...card.keywords],
      examples: [...card.examples],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

export interface A2aExecutorOptions {
  turns: TurnRunner;
  feed: TurnFeed;
  idempotency?: TurnIdempotency;
  logger: Logger;
  maxQueryChars: number;
}

/** The executor: one A2A message = one turn of the context's session. */
export function createA2aExecutor(options: A2aExecutorOptions): AgentExecutor {
  const { turns, feed, logger } = options;
  /** Running turns by A2A task id, to cancel them. */
  const running = new Map<string, { owner: string; sessionId: string; done: Promise<unknown> }>();

  return {
    async execute(context, bus) {
      const message = context.userMessage;
      const caller = context.context.user instanceof A2aCaller ? context.context.user : new A2aCaller('default', false, 0, randomUUID());
      const existing = context.task;
      const read = readMessage(message, context, caller);
      // A state only moves forward: a follow-up on a task (input-required) makes it working, never submitted again.
      // The user id rides in the task's metadata, so a cancel on another replica can reach the turn.
      const history = existing?.history ?? [];
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: { state: existing ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: existing?.artifacts ?? [],
          history: history.some((entry) => entry.messageId === message.messageId) ? [...history] : [...history, message],
          metadata: { ...existing?.metadata, ...(read.ok ? { user_id: read.userId } : {}) },
        }),
      );
      const fail = (text: string) => {
        bus.publish(status(context, TaskState.TASK_STATE_FAILED, [textPart(text)]));
        bus.finished();
      };

      if (!read.ok) return fail(read.problem);
      const { request: turnRequest, userId } = read;
      if (turnRequest.query.length > options.maxQueryChars) return fail(`the message is longer than ${options.maxQueryChars} characters`);
      const owner = ownerKey(caller.tenant, userId);
      const sessionId = context.contextId;

      const events: ResponseState[] = [];
      const onEvent = (event: ResponseState) => {
        events.push(event);
        if (event.is_thinking && event.content.trim() !== '' && event.type !== 'done') {
          bus.publish(status(context, TaskState.TASK_STATE_WORKING, [textPart(event.content)]));
        }
      };

      // The same message id from the same caller: the first turn's events, never a second turn.
      const idempotencyKey = `a2a:${message.messageId}`;
      const claim = options.idempotency && message.messageId ? await options.idempotency.claim(owner, idempotencyKey) : ({ kind: 'new' } as const);
      if (claim.kind === 'pending') return fail('a message with this id is still starting its turn; retry shortly');
      if (claim.kind === 'existing') {
        bus.publish(status(context, TaskState.TASK_STATE_WORKING));
        const controller = new AbortController();
        await feed.follow(claim.turnId, 0, (stored) => onEvent(JSON.parse(stored.data) as ResponseState), controller.signal);
        publishEnd(context, bus, events);
        return;
      }

      // Known as running before the turn starts: a cancel that arrives with the first events still reaches it.
      let settle!: (done: unknown) => void;
      const done = new Promise<unknown>((resolve) => (settle = resolve));
      running.set(context.taskId, { owner, sessionId, done });
      try {
        const started = await turns.start(
          { ...turnRequest, userId, tenant: caller.tenant, sessionId, traceId: caller.traceId, delegationDepth: caller.delegationDepth, onDisconnect: 'continue' },
          { signal: new AbortController().signal, onEvent },
        );
        if (options.idempotency && message.messageId && started.turnId) {
          await options.idempotency
            .record(owner, idempotencyKey, { turnId: started.turnId, sessionId: started.sessionId })
            .catch((error: unknown) => logger.warn({ err: error }, 'recording the A2A message id failed'));
        }
        settle(started.done);
      } catch (error) {
        settle(undefined);
        running.delete(context.taskId);
        if (options.idempotency && message.messageId) await options.idempotency.release(owner, idempotencyKey).catch(() => {});
        return fail((error as Error).message);
      }
      bus.publish(status(context, TaskState.TASK_STATE_WORKING));
      try {
        await done;
      } finally {
        running.delete(context.taskId);
      }
      publishEnd(context, bus, events);
    },

    async cancelTask(taskId, bus) {
      const turn = running.get(taskId);
      if (turn) {
        // The turn ends with outcome "cancelled"; `execute` then reports the task as canceled.
        await feed.cancel(turn.owner, turn.sessionId);
        await turn.done;
        return;
      }
      let contextId = '';
      const task = bus instanceof StoredTaskFollower ? await bus.read().catch(() => undefined) : undefined;
      if (bus instanceof StoredTaskFollower && task) {
        // A task another replica may be running: ask the turn feed to cancel its turn wherever it runs.
        contextId = task.contextId;
        const userId = task.metadata?.user_id;
        const tenant = bus.context.user instanceof A2aCaller ? bus.context.user.tenant : DEFAULT_TENANT;
        if (typeof userId === 'string') {
          await feed.cancel(ownerKey(tenant, userId), task.contextId).catch((error: unknown) => logger.warn({ err: error, taskId }, 'cancelling the A2A turn on another replica failed'));
        }
      }
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: now() }, metadata: undefined }),
      );
      bus.finished();
    },
  };
}

type ReadMessage = { ok: true; request: Omit<TurnRequest, 'traceId' | 'userId'>; userId: string } | { ok: false; problem: string };

/** The turn an A2A message asks for: text = the query, data parts may confirm / reject held tasks or name the user. */
function readMessage(message: Message, context: RequestContext, caller: A2aCaller): ReadMessage {
  const texts: string[] = [];
  const data: Record<string, unknown> = {};
  for (const part of message.parts) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (part.content?.$case === 'data' && typeof part.content.value === 'object' && part.content.value !== null) Object.assign(data, part.content.value);
  }
  const query = texts.join('\n').trim();
  const confirm = taskIds(data.confirm);
  const reject = taskIds(data.reject);
  if (confirm === null || reject === null) return { ok: false, problem: 'confirm and reject must be lists of task ids' };
  const choose = data.choose;
  if (choose !== undefined && (typeof choose !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/u.test(choose))) return { ok: false, problem: 'choose must be an option_id of the last clarification' };
  if (query === '' && confirm.length === 0 && reject.length === 0 && choose === undefined) return { ok: false, problem: 'the message has no text' };
  if (!isValidId('session_id', context.contextId)) return { ok: false, problem: 'the contextId may only hold letters, digits and _ . : - (1 to 128 characters)' };

  const named = message.metadata?.user_id ?? context.request.metadata?.user_id;
  let userId: string;
  if (named !== undefined) {
    if (typeof named !== 'string' || !isValidId('user_id', named)) return { ok: false, problem: 'metadata.user_id may only hold letters, digits and _ . : @ - (1 to 128 characters)' };
    userId = named;
  } else if (caller.keysOn) {
    userId = caller.tenant;
  } else {
    userId = `a2a:${context.contextId}`.slice(0, 128);
  }
  return {
    ok: true,
    userId,
    request: { query, ...(confirm.length > 0 ? { confirm } : {}), ...(reject.length > 0 ? { reject } : {}), ...(typeof choose === 'string' ? { choose } : {}) },
  };
}

function taskIds(value: unknown): string[] | null {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 50 || !value.every((id) => typeof id === 'string' && isValidId('task_id', id))) return null;
  return value as string[];
}

/** Reports how the turn ended: the answer as the status message, its outcome as data. */
function publishEnd(context: RequestContext, bus: ExecutionEventBus, events: readonly ResponseState[]): void {
  const outcome = readTurnEvents(events);
  const answer = answerOf(events);
  const parts: Part[] = answer === '' ? [] : [textPart(answer)];
  switch (outcome.outcome) {
    case 'input_required':
      parts.push(
        outcome.clarification
          ? dataPart({ outcome: outcome.outcome, clarification: { options: outcome.clarification.options } })
          : dataPart({
              outcome: outcome.outcome,
              semantic_info: outcome.semanticInfo,
              missing_keys: outcome.semanticInfo.flatMap((info) => info.keys),
            }),
      );
      bus.publish(status(context, TaskState.TASK_STATE_INPUT_REQUIRED, parts));
      break;
    case 'awaiting_confirmation':
      parts.push(dataPart({ outcome: outcome.outcome, confirmation: outcome.confirmation }));
      bus.publish(status(context, TaskState.TASK_STATE_INPUT_REQUIRED, parts));
      break;
    case 'cancelled':
    case 'aborted':
      bus.publish(status(context, TaskState.TASK_STATE_CANCELED, parts));
      break;
    case 'failed':
    case 'error':
      bus.publish(status(context, TaskState.TASK_STATE_FAILED, parts));
      break;
    default:
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          artifact: { artifactId: 'outcome', name: 'outcome', description: '', parts: [dataPart({ outcome: outcome.outcome, session_id: context.contextId })], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(status(context, TaskState.TASK_STATE_COMPLETED, parts));
  }
  bus.finished();
}

function now(): string {
  return new Date().toISOString();
}

function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function status(context: RequestContext, state: TaskState, parts?: Part[]) {
  const message: Message | undefined =
    parts && parts.length > 0
      ? {
          messageId: randomUUID(),
          contextId: context.contextId,
          taskId: context.taskId,
          role: Role.ROLE_AGENT,
          parts,
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }
      : undefined;
  return AgentEvent.statusUpdate({ taskId: context.taskId, contextId: context.contextId, status: { state, message, timestamp: now() }, metadata: undefined });
}
