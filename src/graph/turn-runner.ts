/**
 * Runs one user turn through the supervisor graph and turns node events into
 * numbered `ResponseState` events while the graph runs.
 *
 * One turn at a time per session: a second turn on a busy session is refused
 * with 409 rather than queued, so two turns never interleave their memory
 * updates (the checkpoint is read at the start and written at the end).
 */
import { randomUUID } from 'node:crypto';
import { detectLanguage } from '../intent/index.js';
import type { Logger } from '../logger.js';
import { agentSecrets } from '../agents/agent-secrets.js';
import { redactSecrets } from '../agents/failure-reason.js';
import type { Registry, RegistrySnapshot } from '../registry/types.js';
import type { MessageStore } from '../store/types.js';
import { UserError } from '../errors.js';
import type { LlmUsage } from '../llm/types.js';
import type { NodeEvent, TurnContext } from './context.js';
import type { ResponseState } from './response-state.js';
import type { SupervisorGraph } from './build-graph.js';
import type { StartedTurn, TurnRequest, TurnResult, TurnRunner } from './turn-types.js';

export interface TurnRunnerOptions {
  registry: Registry;
  graph: SupervisorGraph;
  messages: MessageStore;
  logger: Logger;
  /** Drops older checkpoints of a thread after each turn (keeps storage bounded). */
  pruneCheckpoints?: (threadId: string) => Promise<void>;
  now?: () => Date;
  /** Per-turn usage summary added to the final and done events. */
  summariseUsage?: (usage: LlmUsage) => Record<string, unknown>;
  onTurnEnd?: (outcome: 'completed' | 'aborted' | 'error', durationMs: number) => void;
}

const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Keeps internals out of user-facing text (an agent's own message, an LLM
 * answer): any agent id is replaced with the agent's name (ids match as whole
 * tokens, longest first, so `hotel-vip` is not read as `hotel`), every
 * endpoint URL or `host:port` of the registry with a neutral word, and every
 * header value of any agent with `[redacted]`.
 */
export function createContentGuard(snapshot: RegistrySnapshot): (text: string) => string {
  const ids = [...snapshot.byId.keys()].sort((a, b) => b.length - a.length);
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const idPattern = ids.length > 0 ? new RegExp(`(?<![A-Za-z0-9_])(?:${ids.map(escape).join('|')})(?![A-Za-z0-9_])`, 'g') : null;
  const secrets = agentSecrets(snapshot);
  const addresses = endpointAddresses(snapshot);
  if (!idPattern && secrets.length === 0 && addresses.length === 0) return (text) => text;
  return (text) => {
    let result = idPattern ? text.replace(idPattern, (id) => snapshot.byId.get(id)?.name ?? '') : text;
    if (secrets.length > 0) result = redactSecrets(result, secrets);
    for (const address of addresses) if (result.includes(address)) result = result.split(address).join('[internal address]');
    return result;
  };
}

/** Endpoint URLs of the registry and their `host:port` / host parts, longest first. */
function endpointAddresses(snapshot: RegistrySnapshot): string[] {
  const found = new Set<string>();
  for (const card of snapshot.agents) {
    found.add(card.endpoint.url);
    try {
      const url = new URL(card.endpoint.url);
      found.add(`${url.origin}${url.pathname}`);
      found.add(url.host);
      // A bare host name is only an address when it is not an ordinary word.
      if (url.hostname.includes('.') || url.hostname.includes(':')) found.add(url.hostname);
    } catch {
      // An unparseable url was refused at load; nothing more to add.
    }
  }
  return [...found].filter((address) => address.length >= 4).sort((a, b) => b.length - a.length);
}

const guards = new WeakMap<RegistrySnapshot, (text: string) => string>();
function contentGuard(snapshot: RegistrySnapshot): (text: string) => string {
  let guard = guards.get(snapshot);
  if (!guard) {
    guard = createContentGuard(snapshot);
    guards.set(snapshot, guard);
  }
  return guard;
}

export function createTurnRunner(options: TurnRunnerOptions): TurnRunner {
  const busy = new Set<string>();
  const now = options.now ?? (() => new Date());

  async function execute(
    request: TurnRequest & { sessionId: string },
    signal: AbortSignal,
    onEvent: (event: ResponseState) => void,
  ): Promise<TurnResult> {
    const startedAt = Date.now();
    const snapshot = options.registry.current();
    const guard = contentGuard(snapshot);
    const events: ResponseState[] = [];
    const usage: LlmUsage = { calls: [] };
    const usageState = () => (options.summariseUsage ? { llm: options.summariseUsage(usage) } : {});
    let finalAnswer = '';
    let outcome: 'completed' | 'aborted' | 'error' = 'completed';

    const send = (event: NodeEvent, type: ResponseState['type'] = 'content'): void => {
      const complete = (event.stage === 'final' && event.state?.delta !== true) || event.stage === 'done';
      const state = complete ? { ...event.state, ...usageState() } : event.state;
      const response: ResponseState = {
        type,
        content: guard(event.content),
        agent_id: event.agent_id,
        is_thinking: event.is_thinking,
        session_id: request.sessionId,
        metadata: {
          stage: event.stage,
          seq: events.length + 1,
          ...(event.semantic_info ? { semantic_info: event.semantic_info } : {}),
          ...(state ? { state } : {}),
        },
      };
      const isDelta = event.state?.delta === true;
      if ((event.stage === 'final' && !isDelta) || event.stage === 'escalate') finalAnswer = finalAnswer && event.stage === 'escalate' ? `${finalAnswer}\n\n${response.content}` : response.content;
      events.push(response);
      if (!signal.aborted) onEvent(response);
    };

    const context: TurnContext = {
      snapshot,
      signal,
      now: now(),
      traceId: request.traceId,
      language: detectLanguage(request.query),
      usage,
      timings: {},
    };
    const threadKey = `${request.userId}:${request.sessionId}`;
    try {
      const stream = await options.graph.stream(
        { query: request.query, user_id: request.userId, thread_id: request.sessionId },
        { configurable: { thread_id: threadKey }, context: context as unknown as Record<string, unknown>, streamMode: 'custom', durability: 'exit', signal },
      );
      for await (const chunk of stream) send(chunk as NodeEvent);
    } catch (error) {
      if (signal.aborted) {
        outcome = 'aborted';
        options.logger.info({ traceId: request.traceId, session: request.sessionId }, 'turn aborted by the client');
      } else {
        outcome = 'error';
        options.logger.error({ traceId: request.traceId, err: error }, 'turn failed');
        send({
          stage: 'final',
          content: context.language === 'zh' ? '抱歉，处理您的请求时出现了问题，请稍后再试。' : 'Sorry, something went wrong while handling your request. Please try again.',
          agent_id: 'supervisor',
          is_thinking: false,
        });
      }
    }

    const seq = await options.messages.nextSeq(request.userId, request.sessionId);
    const createdAt = new Date().toISOString();
    await options.messages.appendMessages(request.userId, request.sessionId, [
      { seq, role: 'user', content: request.query, created_at: createdAt, metadata: { trace_id: request.traceId } },
      {
        seq: seq + 1,
        role: 'assistant',
        content: finalAnswer,
        created_at: createdAt,
        metadata: { trace_id: request.traceId, outcome, registry_version: snapshot.version },
      },
    ]);
    if (outcome !== 'aborted') await options.pruneCheckpoints?.(threadKey).catch((error: unknown) => options.logger.warn({ err: error }, 'checkpoint pruning failed'));
    const durationMs = Date.now() - startedAt;
    send(
      {
        stage: 'done',
        content: '',
        agent_id: 'supervisor',
        is_thinking: false,
        state: { trace_id: request.traceId, outcome, duration_ms: durationMs, timings_ms: { ...context.timings } },
      },
      'done',
    );
    options.logger.info(
      { traceId: request.traceId, session: request.sessionId, outcome, durationMs, timingsMs: context.timings, ...usageState() },
      'turn finished',
    );
    options.onTurnEnd?.(outcome, durationMs);
    return { sessionId: request.sessionId, finalAnswer, events };
  }

  return {
    async start(request, { signal, onEvent }): Promise<StartedTurn> {
      if (typeof request.query !== 'string' || request.query.trim() === '') throw new UserError('BAD_REQUEST', 'query must be a non-empty string');
      if (typeof request.userId !== 'string' || request.userId === '') throw new UserError('BAD_REQUEST', 'user_id must be a non-empty string');
      if (request.sessionId !== undefined && !SESSION_ID.test(request.sessionId)) {
        throw new UserError('BAD_REQUEST', 'session_id must be 1-128 characters of letters, digits, _ . : -');
      }
      const sessionId = request.sessionId ?? `s_${randomUUID()}`;
      // Session ids are namespaced per user (the memory thread is user:session).
      const busyKey = `${request.userId}\u0000${sessionId}`;
      if (busy.has(busyKey)) throw new UserError('TURN_IN_PROGRESS', `a turn is already running on session ${sessionId}`);
      busy.add(busyKey);
      const done = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => execute({ ...request, sessionId }, signal, onEvent))
        .catch((error: unknown): TurnResult => {
          options.logger.error({ traceId: request.traceId, err: error }, 'turn bookkeeping failed');
          const event: ResponseState = {
            type: 'done',
            content: '',
            agent_id: 'supervisor',
            is_thinking: false,
            session_id: sessionId,
            metadata: { stage: 'done', seq: 1 },
          };
          if (!signal.aborted) onEvent(event);
          return { sessionId, finalAnswer: '', events: [event] };
        })
        .finally(() => busy.delete(busyKey));
      return { sessionId, done };
    },
  };
}
