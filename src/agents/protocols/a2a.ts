/**
 * `a2a`: the sub-task as one A2A message, sent with `@a2a-js/sdk` (docs/api.md#sub-agent-wire-protocol).
 * The SDK does the protocol: its `ClientFactory` picks the transport from the
 * Agent Card (JSON-RPC or HTTP+JSON, v1.0, or v0.3 through `legacyCompat`),
 * sends, streams and cancels. This adapter only builds the message, reads the
 * task the agent ends in, and puts the client's rules around the SDK's requests:
 * every request (the card's included) goes through the attempt's fetch (the
 * private-address check), carries the card headers, the request and trace ids
 * and the delegation depth, follows no redirect, and has its body capped.
 *
 * Endpoint url: the agent's base url (card at `.well-known/agent-card.json`
 * under it), or the card's own url when it ends in `.json` (`a2a_card`).
 */
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { Role, TaskState, type AgentCard as A2aCard, type Artifact, type Message, type Part, type StreamResponse, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { AgentReply, AgentRequestBody } from '../types.js';
import type { AttemptResult, ProtocolAdapter, ProtocolAttempt } from './protocol-adapter.js';
import { describeError, describeTarget, redactHeaderValues } from './http-common.js';

/** Options of the adapter. */
export interface A2aAdapterOptions {
  /** How long a fetched Agent Card is reused before it is fetched again. Default 60 s. */
  cardTtlMs?: number;
  /** How long a CancelTask sent for an aborted call may take. Default 2000 ms. */
  cancelTimeoutMs?: number;
  /** Clock for the card cache (tests). */
  now?: () => number;
}

const LEGACY = { enabled: true } as const;
const CARD_PATH = '.well-known/agent-card.json';

/** The Agent Card url of an `a2a` endpoint url. */
export function agentCardUrl(endpointUrl: string): string {
  const url = new URL(endpointUrl);
  if (url.pathname.endsWith('.json')) return url.toString();
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return new URL(CARD_PATH, url).toString();
}

/** What one attempt's requests met on the wire, to name a failure after the SDK threw. */
interface WireLog {
  httpStatus?: number;
  connectError?: string;
  tooLarge?: { what: string; limit: number };
}

/** Creates the adapter for agents that speak A2A. */
export function createA2aAdapter(options: A2aAdapterOptions = {}): ProtocolAdapter {
  const cardTtlMs = options.cardTtlMs ?? 60_000;
  const cancelTimeoutMs = options.cancelTimeoutMs ?? 2_000;
  const now = options.now ?? Date.now;
  const cards = new Map<string, { card: A2aCard; expiresAt: number }>();

  return {
    protocol: 'a2a',
    async invoke(attempt) {
      const wire: WireLog = {};
      const linked = { signal: attempt.signal as AbortSignal | undefined };
      const fetchImpl = guardedFetch(attempt, wire, linked);
      const cardUrl = agentCardUrl(attempt.url);
      const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: LEGACY });
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: LEGACY }), new RestTransportFactory({ fetchImpl, legacyCompat: LEGACY })],
        cardResolver: resolver,
      });

      let client: Client;
      let card: A2aCard;
      try {
        const cached = cards.get(cardUrl);
        card = cached && cached.expiresAt > now() ? cached.card : await resolver.resolve(cardUrl, '');
        client = await factory.createFromAgentCard(card);
        cards.set(cardUrl, { card, expiresAt: cached && cached.expiresAt > now() ? cached.expiresAt : now() + cardTtlMs });
      } catch (error) {
        cards.delete(cardUrl);
        return failure(error, wire, attempt, `the Agent Card at ${describeTarget(cardUrl)}`);
      }

      const message = buildMessage(attempt.body);
      const request = { tenant: '', message, configuration: undefined, metadata: undefined };
      const state: { task?: Task; message?: Message } = {};
      try {
        if (card.capabilities?.streaming === true) {
          for await (const event of client.sendMessageStream(request, { signal: attempt.signal })) {
            applyStreamEvent(state, event.payload, attempt.onProgress);
            if (state.message || isSettled(state.task?.status?.state)) break;
          }
        } else {
          const result = await client.sendMessage(request, { signal: attempt.signal });
          if (isTask(result)) state.task = result;
          else state.message = result;
        }
      } catch (error) {
        if (attempt.signal.aborted) sendCancel(client, state.task, linked, cancelTimeoutMs);
        return failure(error, wire, attempt, `the A2A call to ${describeTarget(attempt.url)}`);
      }
      if (attempt.signal.aborted) {
        sendCancel(client, state.task, linked, cancelTimeoutMs);
        return { ok: false, code: 'aborted', reason: 'the call was cancelled' };
      }
      return readOutcome(state, attempt.url);
    },
  };
}

/** The sub-task as one A2A message: the text, then the inputs and upstream outputs as data. */
function buildMessage(body: AgentRequestBody): Message {
  return {
    // The same id on a retry: the agent can tell a repeat (as with `task_id` over http).
    messageId: body.task_id,
    contextId: body.thread_id,
    taskId: '',
    role: Role.ROLE_USER,
    parts: [textPart(body.message), dataPart({ inputs: body.inputs, upstream: body.upstream })],
    metadata: { task_id: body.task_id, user_id: body.user_id, trace_id: body.trace_id },
    extensions: [],
    referenceTaskIds: [],
  };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function isTask(result: Task | Message): result is Task {
  return 'status' in result && 'id' in result && !('role' in result);
}

const TERMINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** A state the call ends on: terminal, or interrupted (the agent waits for the user). */
function isSettled(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

type StreamPayload = StreamResponse['payload'];

/** Folds one stream event into the task seen so far; working updates with text are relayed as progress. */
function applyStreamEvent(state: { task?: Task; message?: Message }, payload: StreamPayload, onProgress?: (content: string) => void): void {
  if (!payload) return;
  switch (payload.$case) {
    case 'message':
      state.message = payload.value;
      return;
    case 'task':
      state.task = payload.value;
      return;
    case 'statusUpdate': {
      const update = payload.value;
      const status: TaskStatus | undefined = update.status;
      state.task = { ...(state.task ?? emptyTask(update.taskId, update.contextId)), status };
      if (status && !isSettled(status.state)) relay(textOf(status.message?.parts ?? []), onProgress);
      return;
    }
    case 'artifactUpdate': {
      const update = payload.value;
      if (!update.artifact) return;
      const task = state.task ?? emptyTask(update.taskId, update.contextId);
      const artifacts = [...task.artifacts];
      const index = artifacts.findIndex((artifact) => artifact.artifactId === update.artifact!.artifactId);
      if (index >= 0 && update.append) artifacts[index] = { ...artifacts[index]!, parts: [...artifacts[index]!.parts, ...update.artifact.parts] };
      else if (index >= 0) artifacts[index] = update.artifact;
      else artifacts.push(update.artifact);
      state.task = { ...task, artifacts };
      return;
    }
  }
}

function emptyTask(id: string, contextId: string): Task {
  return { id, contextId, status: undefined, artifacts: [], history: [], metadata: undefined };
}

function relay(text: string, onProgress?: (content: string) => void): void {
  if (!onProgress || text.trim() === '') return;
  try {
    onProgress(text);
  } catch {
    // A listener's bug must not fail the sub-task.
  }
}

/** Maps the task (or message) the agent ended with to our reply (the state mapping of docs/api.md#sub-agent-wire-protocol). */
function readOutcome(state: { task?: Task; message?: Message }, url: string): AttemptResult {
  if (state.message) {
    return { ok: true, reply: replyFrom('completed', state.message.parts, []) };
  }
  const task = state.task;
  const taskState = task?.status?.state;
  if (!task || taskState === undefined) {
    return { ok: false, code: 'stream_incomplete', reason: `${describeTarget(url)} ended the A2A call without a task or message` };
  }
  const statusParts = task.status?.message?.parts ?? [];
  switch (taskState) {
    case TaskState.TASK_STATE_COMPLETED:
      return { ok: true, reply: replyFrom('completed', statusParts, task.artifacts) };
    case TaskState.TASK_STATE_INPUT_REQUIRED: {
      const reply = replyFrom('input_required', statusParts, []);
      const keys = namedKeys(statusParts);
      return { ok: true, reply: { ...reply, ...(keys.length > 0 ? { missing_keys: keys } : {}) } };
    }
    case TaskState.TASK_STATE_FAILED:
    case TaskState.TASK_STATE_REJECTED:
    case TaskState.TASK_STATE_CANCELED:
    case TaskState.TASK_STATE_AUTH_REQUIRED: {
      const text = textOf(statusParts).trim();
      const word = STATE_WORDS[taskState];
      return { ok: true, reply: { status: 'failed', message: text === '' ? `the agent ${word} the task` : text } };
    }
    default:
      return {
        ok: false,
        code: 'stream_incomplete',
        reason: `the A2A task at ${describeTarget(url)} stopped in state ${TaskState[taskState] ?? taskState} before it finished`,
      };
  }
}

const STATE_WORDS: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
  [TaskState.TASK_STATE_CANCELED]: 'cancelled',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'asked for authentication on',
};

/**
 * An A2A reply in our envelope (CONTRACT §3 "A2A, v4 readings"): `output` is
 * always an object, its data parts merged (`{}` when it has none, so a text-only
 * agent meets an `output_schema` of `{ type: object }`), and `message` its text.
 */
function replyFrom(status: AgentReply['status'], messageParts: readonly Part[], artifacts: readonly Artifact[]): AgentReply {
  const parts = [...messageParts, ...artifacts.flatMap((artifact) => artifact.parts)];
  const text = textOf(parts).trim();
  return { status, output: dataOf(parts), ...(text !== '' ? { message: text } : {}) };
}

function textOf(parts: readonly Part[]): string {
  return parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** Data parts merged into one object; a value that is not an object lands under `data`. */
function dataOf(parts: readonly Part[]): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  for (const part of parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) Object.assign(output, value);
    else if (value !== undefined) output.data = value;
  }
  return output;
}

/** Keys an input-required agent names in a data part: `missing_keys` (ours) or `keys`. */
function namedKeys(parts: readonly Part[]): string[] {
  const data = dataOf(parts);
  const named = Array.isArray(data.missing_keys) ? data.missing_keys : Array.isArray(data.keys) ? data.keys : [];
  return named.filter((key): key is string => typeof key === 'string' && key !== '');
}

/** Tells the agent to stop a task we no longer wait for; never awaited, never failing the call. */
function sendCancel(client: Client, task: Task | undefined, linked: { signal: AbortSignal | undefined }, timeoutMs: number): void {
  if (!task?.id || isSettled(task.status?.state)) return;
  // The cancel is its own request: the call's signal has already fired.
  linked.signal = undefined;
  client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);
}

/** Names a failure after what the wire showed; the SDK's own error text is the fallback. */
function failure(error: unknown, wire: WireLog, attempt: ProtocolAttempt, what: string): AttemptResult {
  if (wire.tooLarge) {
    return { ok: false, code: 'too_large', reason: `${wire.tooLarge.what} from ${describeTarget(attempt.url)} exceeded the ${wire.tooLarge.limit}-byte limit` };
  }
  if (wire.connectError !== undefined) {
    return { ok: false, code: 'connect_error', reason: `could not reach ${describeTarget(attempt.url)}: ${wire.connectError}` };
  }
  if (wire.httpStatus !== undefined && (wire.httpStatus < 200 || wire.httpStatus >= 300)) {
    const redirect = wire.httpStatus >= 300 && wire.httpStatus < 400 ? '; redirects are not followed' : '';
    return { ok: false, code: 'http_status', httpStatus: wire.httpStatus, reason: `${what} answered HTTP ${wire.httpStatus}${redirect}` };
  }
  const detail = redactHeaderValues(describeError(error), attempt.headers);
  return { ok: false, code: 'bad_body', reason: `${what} failed: ${detail}` };
}

/**
 * The fetch the SDK is given for one attempt: the attempt's (checked) fetch,
 * our headers, the attempt's signal, no redirects, capped bodies, and a log of
 * what happened for `failure`.
 */
function guardedFetch(attempt: ProtocolAttempt, wire: WireLog, linked: { signal: AbortSignal | undefined }): typeof globalThis.fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(attempt.headers)) if (!headers.has(name)) headers.set(name, value);
    const signals = [init?.signal, linked.signal].filter((signal): signal is AbortSignal => signal instanceof AbortSignal);
    let response: Response;
    try {
      response = await attempt.fetch(input instanceof Request ? input.url : String(input), {
        ...init,
        headers,
        redirect: 'manual',
        ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
      });
    } catch (error) {
      if (!signals.some((signal) => signal.aborted)) wire.connectError = redactHeaderValues(describeError(error), attempt.headers);
      throw error;
    }
    wire.httpStatus = response.status;
    if (!response.ok) return response;
    const streaming = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    const limit = streaming ? attempt.maxStreamBytes : attempt.maxResponseBytes;
    return capped(response, limit, () => {
      wire.tooLarge = { what: streaming ? 'the event stream' : 'the reply body', limit };
    });
  };
}

/** The response with a body that errors once more than `limit` bytes came. */
function capped(response: Response, limit: number, onTooLarge: () => void): Response {
  if (!response.body) return response;
  let seen = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) {
          onTooLarge();
          controller.error(new Error(`the body exceeded ${limit} bytes`));
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
