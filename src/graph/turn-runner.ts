/**
 * Runs one user turn through the supervisor graph and turns node events into
 * numbered `ResponseState` events while the graph runs.
 *
 * The turn's life, in order: take the session's lease (one turn per session
 * across every replica: a second turn gets 409 rather than interleaving its
 * memory updates with the first), write the user's row ahead, run the graph
 * (each event stored as sent, each sub-task recorded before it is sent),
 * write the answer row, release the lease, send `done`. A turn whose process
 * died keeps its lease until the TTL runs out; the next turn on the session
 * then finds it still marked running and records it as interrupted.
 */
import { randomUUID } from 'node:crypto';
import { detectLanguage } from '../text/index.js';
import type { Logger } from '../logger.js';
import { createOutputGuard, createSystemPromptLeakCheck, type OutputGuard } from './output-guard.js';
import { createSecretGuard, scrubDeep } from '../guard/content-guard.js';
import type { TextScrubber } from '../text/id-scrubber.js';
import type { DeltaStream, MessageStream } from '../text/index.js';
import type { Registry, RegistrySnapshot } from '../registry/types.js';
import type { Storage, TurnOutcome } from '../store/types.js';
import { maskForSnapshot, type PiiMasker } from '../privacy/index.js';
import { DEFAULT_TENANT, checkpointThread, ownerKey } from '../store/owner-key.js';
import { UserError } from '../errors.js';
import { type StopNoticeReason, turnFailedText, turnStoppedText } from '../i18n/index.js';
import type { LlmUsage } from '../llm/types.js';
import type { NodeEvent, TaskRecorder, TurnContext } from './context.js';
import type { ResponseState } from './response-state.js';
import type { SupervisorGraph } from './build-graph.js';
import { acquireSessionLease, sessionLeaseKey } from './session-lease.js';
import { cancelChannel, turnEventsChannel } from './turn-channels.js';
import { createTurnEventLog } from './turn-event-log.js';
import { createTurnBudget, type BudgetName } from './turn-budget.js';
import { createStreamGovernor, DEFAULT_STREAM_CAPS, type StreamCapName, type StreamCaps } from './stream-caps.js';
import type { StartedTurn, TurnRequest, TurnResult, TurnRunner } from './turn-types.js';
import { decideTurnOutcome } from './turn-outcome.js';

/** The parts of storage a turn uses. */
export type TurnStorage = Pick<Storage, 'transcript' | 'events' | 'tasks' | 'leases' | 'signals'>;

/** Why a running turn was stopped (the abort reason of its signal). */
export type TurnStopReason = 'client_disconnected' | StopNoticeReason;


export interface TurnRunnerOptions {
  registry: Registry;
  graph: SupervisorGraph;
  storage: TurnStorage;
  logger: Logger;
  /** Identifies this process as a lease holder (default a random id). */
  replicaId?: string;
  /** Lease time to live; a dead replica's session is free again after this. Default 15000 ms. */
  leaseTtlMs?: number;
  /** Turns a session may have waiting with `multitask_strategy: "enqueue"` (per process). Default 5. */
  maxQueuedTurns?: number;
  /** Longest an enqueued turn waits for its start. Default 120000 ms. */
  queueWaitMs?: number;
  /** Announce each stored batch of events on the signal bus (for resume followers); on where signals are cheap. */
  announceEvents?: boolean;
  /** Drops older checkpoints of a thread after each turn (keeps storage bounded). */
  pruneCheckpoints?: (threadId: string) => Promise<void>;
  now?: () => Date;
  /** Per-turn usage summary added to the final and done events. */
  summariseUsage?: (usage: LlmUsage) => Record<string, unknown>;
  /** Called once per finished turn with its lifecycle outcome and every event it sent (metrics). */
  onTurnEnd?: (outcome: TurnOutcome, durationMs: number, events: readonly ResponseState[]) => void;
  /** Called the first time a turn reaches one of its budgets (metrics). */
  onBudgetReached?: (budget: BudgetName) => void;
  /**
   * How long a turn past its `max_turn_ms` gets to finish its answer before it
   * is stopped outright (something ignored the deadline). Default 5000 ms.
   */
  budgetGraceMs?: number;
  /** Caps on the `agent_stream` progress one turn relays (default `DEFAULT_STREAM_CAPS`). */
  streamCaps?: Partial<StreamCaps>;
  /** Called for each progress event a cap dropped; `first` once per cap per turn (metrics). */
  onStreamDrop?: (cap: StreamCapName, first: boolean) => void;
}

function stopReasonOf(signal: AbortSignal): TurnStopReason {
  const reason: unknown = signal.reason;
  return reason === 'server_shutdown' || reason === 'lease_lost' || reason === 'user_cancel' || reason === 'max_turn_ms' ? reason : 'client_disconnected';
}

/** The user's side of a turn in the transcript; a body-only confirmation is recorded by its task ids. */
function userMessageText(request: TurnRequest): string {
  if (request.query.trim() !== '') return request.query;
  const parts = [request.confirm?.length ? `confirm: ${request.confirm.join(', ')}` : '', request.reject?.length ? `reject: ${request.reject.join(', ')}` : ''];
  return parts.filter(Boolean).join('; ');
}

/** Polls for the lease until taken, the client leaves, or `timeoutMs` passes. */
async function waitForLease<T>(tryLease: () => Promise<T | undefined>, signal: AbortSignal, timeoutMs: number): Promise<T | undefined> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline && !signal.aborted; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lease = await tryLease();
    if (lease) return lease;
  }
  return undefined;
}

/**
 * Per-session FIFO of enqueued turns in this process (`multitask_strategy:
 * "enqueue"`): each waits for the one before it to start (or give up), then
 * for the lease. Bounded: a full queue is refused with 429.
 */
function createSessionQueues(maxQueued: number) {
  const tails = new Map<string, { tail: Promise<unknown>; size: number }>();
  return {
    async wait<T>(key: string, take: () => Promise<T>): Promise<T> {
      const queue = tails.get(key) ?? { tail: Promise.resolve(), size: 0 };
      if (queue.size >= maxQueued) throw new UserError('RATE_LIMITED', `the queue of session turns is full (${maxQueued})`, { retryAfterSeconds: 1 });
      queue.size++;
      const mine = queue.tail.then(take, take);
      queue.tail = mine.catch(() => undefined);
      tails.set(key, queue);
      try {
        return await mine;
      } finally {
        if (--queue.size === 0 && tails.get(key) === queue) tails.delete(key);
      }
    },
  };
}

/** The held stream of one sub-task's progress. */
function agentStreamKey(event: NodeEvent): string {
  return `agent:${String(event.state?.task_id ?? event.agent_id)}`;
}

/** Which held stream a streamed event belongs to; undefined for every other event. */
function heldStreamKey(event: NodeEvent): string | undefined {
  if (event.stage === 'agent_stream') return agentStreamKey(event);
  if (event.stage === 'final' && event.state?.delta === true) return `final:${event.agent_id}`;
  return undefined;
}

/** One held stream of a turn: an answer's deltas, or one sub-task's progress messages. */
type HeldText = { kind: 'deltas'; stream: DeltaStream; first: NodeEvent } | { kind: 'messages'; stream: MessageStream<NodeEvent> };

interface ActiveTurn {
  controller: AbortController;
  done: Promise<TurnResult>;
}

export function createTurnRunner(options: TurnRunnerOptions): TurnRunner {
  const { storage, logger } = options;
  // One content guard per snapshot, built on first use and dropped with the snapshot.
  const guards = new WeakMap<RegistrySnapshot, OutputGuard>();
  const leakCheck = createSystemPromptLeakCheck();
  // Every field of an event besides its content (state, semantic_info, a confirmation) has header values and addresses removed.
  const dataGuards = new WeakMap<RegistrySnapshot, TextScrubber>();
  const dataGuard = (snapshot: RegistrySnapshot): TextScrubber => {
    let scrubber = dataGuards.get(snapshot);
    if (!scrubber) dataGuards.set(snapshot, (scrubber = createSecretGuard(snapshot)));
    return scrubber;
  };
  const contentGuard = (snapshot: RegistrySnapshot): OutputGuard => {
    let guard = guards.get(snapshot);
    if (!guard) {
      // Ids, endpoint addresses, header values and system-prompt text never reach the user.
      guard = createOutputGuard(snapshot, { inventedIds: false, leakCheck });
      guards.set(snapshot, guard);
    }
    return guard;
  };
  const now = options.now ?? (() => new Date());
  const replicaId = options.replicaId ?? `r_${randomUUID().slice(0, 8)}`;
  const leaseTtlMs = options.leaseTtlMs ?? 15000;
  // Task records keep inputs with every personal value masked, whatever the key's type (CONTRACT §7);
  // the agent itself is sent the real values.
  const maskers = new WeakMap<RegistrySnapshot, PiiMasker>();
  const maskInputs = (snapshot: RegistrySnapshot, inputs: Record<string, unknown>): Record<string, unknown> => {
    let masker = maskers.get(snapshot);
    if (!masker) {
      masker = maskForSnapshot(snapshot);
      maskers.set(snapshot, masker);
    }
    return masker.maskDeep(inputs);
  };
  const active = new Map<string, ActiveTurn>();
  const queues = createSessionQueues(options.maxQueuedTurns ?? 5);
  const queueWaitMs = options.queueWaitMs ?? 120000;
  const interruptWaitMs = Math.max(leaseTtlMs, 10000);
  const budgetGraceMs = options.budgetGraceMs ?? 5000;
  const streamCaps: StreamCaps = { ...DEFAULT_STREAM_CAPS, ...options.streamCaps };
  let draining = false;

  function taskRecorder(turn: { turnId: string; owner: string; sessionId: string; traceId: string }, snapshot: RegistrySnapshot): TaskRecorder {
    const settling: Promise<void>[] = [];
    return {
      async dispatched(task) {
        await storage.tasks.recordDispatch({
          task_id: task.task_id,
          turn_id: turn.turnId,
          user_id: turn.owner,
          session_id: turn.sessionId,
          agent_id: task.agent_id,
          inputs: maskInputs(snapshot, task.inputs),
          created_at: new Date().toISOString(),
        });
      },
      settled(taskId, status, detail) {
        settling.push(
          storage.tasks.updateTask(taskId, status, detail).catch((error: unknown) => logger.warn({ err: error, traceId: turn.traceId, task: taskId }, 'recording a task outcome failed')),
        );
      },
    };
  }

  async function execute(
    request: TurnRequest & { sessionId: string; turnId: string; owner: string },
    controller: AbortController,
    clientSignal: AbortSignal,
    release: () => Promise<void>,
    onEvent: (event: ResponseState) => void,
  ): Promise<TurnResult> {
    const startedAt = Date.now();
    const signal = controller.signal;
    const snapshot = options.registry.current();
    const guard = contentGuard(snapshot);
    const scrubData = dataGuard(snapshot).scrub;
    const events: ResponseState[] = [];
    const budget = createTurnBudget({ limits: snapshot.supervisor.budgets, logger, traceId: request.traceId, onReached: options.onBudgetReached });
    // Past the deadline the turn gets a grace period to give its answer; then it is stopped outright.
    let graceTimer: NodeJS.Timeout | undefined;
    budget.deadline.addEventListener(
      'abort',
      () => {
        graceTimer = setTimeout(() => {
          if (!controller.signal.aborted) controller.abort('max_turn_ms');
        }, budgetGraceMs);
      },
      { once: true },
    );
    const usage: LlmUsage = { calls: [], budget: budget.llm };
    const usageState = () => (options.summariseUsage ? { llm: options.summariseUsage(usage) } : {});
    const progress = createStreamGovernor(streamCaps, (cap, agentId, first) => {
      if (first) logger.warn({ traceId: request.traceId, cap, agent: agentId, limits: streamCaps }, 'agent progress over its cap; further progress of this turn dropped');
      options.onStreamDrop?.(cap, first);
    });
    const droppedState = () => {
      const dropped = progress.dropped();
      return dropped.events_per_turn + dropped.agent_stream_bytes > 0 ? { agent_stream_dropped: dropped } : {};
    };
    const budgetState = () => {
      const reached = budget.reached();
      return reached.length > 0 ? { budget_stops: reached } : {};
    };
    const eventLog = createTurnEventLog({
      events: storage.events,
      turnId: request.turnId,
      logger,
      onStored: options.announceEvents
        ? (lastSeq) => void storage.signals.publish(turnEventsChannel(request.turnId), String(lastSeq)).catch(() => {})
        : undefined,
    });
    let finalAnswer = '';
    let outcome: Exclude<TurnOutcome, 'interrupted'> = 'completed';
    // The verify step found the results insufficient: a turn that ran to its end still counts as unresolved (CONTRACT §4).
    let unresolved = false;

    // Events of the turn's end wait here for the session to be free before the client sees them.
    let heldForClient: ResponseState[] | undefined;
    const deliver = (event: NodeEvent, type: ResponseState['type'], content: string): void => {
      const complete = (event.stage === 'final' && event.state?.delta !== true) || event.stage === 'done';
      const state = complete ? { ...event.state, ...usageState(), ...budgetState(), ...droppedState() } : event.state;
      const seq = events.length + 1;
      const response: ResponseState = {
        type,
        content,
        agent_id: event.agent_id,
        is_thinking: event.is_thinking,
        session_id: request.sessionId,
        metadata: {
          stage: event.stage,
          seq,
          turn_id: request.turnId,
          ...(event.semantic_info ? { semantic_info: scrubDeep(event.semantic_info, scrubData) } : {}),
          ...(event.confirmation ? { confirmation: scrubDeep(event.confirmation, scrubData) } : {}),
          ...(state ? { state: scrubDeep(state, scrubData) } : {}),
        },
      };
      const isDelta = event.state?.delta === true;
      if (event.stage === 'final' && !isDelta && (event.state?.verification as { sufficient?: unknown } | undefined)?.sufficient === false) unresolved = true;
      if ((event.stage === 'final' && !isDelta) || event.stage === 'escalate') finalAnswer = finalAnswer && event.stage === 'escalate' ? `${finalAnswer}\n\n${response.content}` : response.content;
      events.push(response);
      // After the whole answer only `escalate` and `done` can follow: they are stored with the turn's end.
      if (event.stage === 'final' && !isDelta) eventLog.holdUntilEnd();
      eventLog.append({ seq, data: JSON.stringify(response) });
      if (heldForClient) heldForClient.push(response);
      else if (!clientSignal.aborted) onEvent(response);
    };

    // Streamed text (agent progress per task, answer deltas per speaker) goes through the guard's streams, so
    // nothing a guard or the masking must see whole is ever split between two events (text/scrub-stream.ts).
    const held = new Map<string, HeldText>();
    const flushHeld = (which: (key: string) => boolean): void => {
      for (const [key, entry] of held) {
        if (!which(key)) continue;
        held.delete(key);
        if (entry.kind === 'deltas') {
          const rest = entry.stream.flush();
          if (rest !== '') deliver(entry.first, 'content', rest);
        } else {
          for (const shown of entry.stream.flush()) deliver(shown.tag, 'content', shown.text);
        }
      }
    };
    const send = (event: NodeEvent, type: ResponseState['type'] = 'content'): void => {
      // Progress over the turn's caps was dropped where it arrived (`context.admitProgress`), before it was guarded.
      const key = heldStreamKey(event);
      if (key !== undefined) {
        let entry = held.get(key);
        if (!entry) {
          // Progress arrives as whole messages a client shows one at a time; deltas are appended.
          entry = event.stage === 'agent_stream' ? { kind: 'messages', stream: guard.messages<NodeEvent>() } : { kind: 'deltas', stream: guard.stream(), first: event };
          held.set(key, entry);
        }
        if (entry.kind === 'deltas') {
          const content = entry.stream.push(event.content);
          if (content !== '') deliver(event, type, content);
        } else {
          for (const shown of entry.stream.push(event.content, event)) deliver(shown.tag, type, shown.text);
        }
        return;
      }
      if (event.stage === 'agent_done' || event.stage === 'agent_failed') flushHeld((name) => name === agentStreamKey(event));
      else if (event.stage !== 'agent_start') flushHeld(() => true);
      deliver(event, type, guard.clean(event.content));
    };

    const context: TurnContext = {
      snapshot,
      signal,
      now: now(),
      traceId: request.traceId,
      language: detectLanguage(request.query),
      usage,
      timings: {},
      turnId: request.turnId,
      delegationDepth: (request.delegationDepth ?? 0) + 1,
      owner: request.owner,
      tasks: taskRecorder(request, snapshot),
      budget,
      admitProgress: (agentId, content) => progress.admit(agentId, content),
    };
    const threadKey = checkpointThread(request.owner, request.sessionId);
    let stopReason: TurnStopReason | undefined;
    try {
      const stream = await options.graph.stream(
        { query: request.query, user_id: request.userId, thread_id: request.sessionId, confirm: request.confirm ?? [], reject: request.reject ?? [] },
        { configurable: { thread_id: threadKey }, context: context as unknown as Record<string, unknown>, streamMode: 'custom', durability: 'exit', signal },
      );
      for await (const chunk of stream) send(chunk as NodeEvent);
    } catch (error) {
      if (signal.aborted) {
        stopReason = stopReasonOf(signal);
        outcome = stopReason === 'client_disconnected' ? 'aborted' : 'cancelled';
        logger.info({ traceId: request.traceId, session: request.sessionId, reason: stopReason }, 'turn stopped');
        if (stopReason !== 'client_disconnected') {
          send({ stage: 'final', content: turnStoppedText(stopReason, context.language), agent_id: 'supervisor', is_thinking: false, state: { cancelled: true, reason: stopReason } });
        }
      } else {
        outcome = 'error';
        logger.error({ traceId: request.traceId, err: error }, 'turn failed');
        send({
          stage: 'final',
          content: turnFailedText(context.language),
          agent_id: 'supervisor',
          is_thinking: false,
        });
      }
    } finally {
      budget.dispose();
      clearTimeout(graceTimer);
    }

    // The turn's end is one write: the events not yet stored (the answer's, and `done`) go with the answer row.
    // The client sees `done` only after the session is free, so its next turn is never refused.
    const durationMs = Date.now() - startedAt;
    heldForClient = [];
    send(
      {
        stage: 'done',
        content: '',
        agent_id: 'supervisor',
        is_thinking: false,
        state: {
          trace_id: request.traceId,
          turn_id: request.turnId,
          outcome: decideTurnOutcome(outcome, events),
          ...(outcome === 'completed' && unresolved ? { unresolved_reason: 'verify_failed' } : {}),
          ...(stopReason && stopReason !== 'client_disconnected' ? { reason: stopReason } : {}),
          ...(context.answerCached && outcome === 'completed' ? { cached: true } : {}),
          duration_ms: durationMs,
          timings_ms: { ...context.timings },
        },
      },
      'done',
    );
    const lastEvents = eventLog.takeQueued();
    let recorded: boolean;
    try {
      recorded = await storage.transcript.finishTurn(request.turnId, {
        content: finalAnswer,
        outcome,
        createdAt: new Date().toISOString(),
        metadata: { registry_version: snapshot.version, ...(stopReason && stopReason !== 'client_disconnected' ? { reason: stopReason } : {}) },
        events: lastEvents,
      });
    } catch (error) {
      // The events still get their own write (resume reads them); the turn's bookkeeping failure goes on up.
      eventLog.requeue(lastEvents);
      await eventLog.flush();
      throw error;
    }
    eventLog.storedElsewhere(lastEvents);
    if (!recorded) logger.warn({ traceId: request.traceId, turnId: request.turnId }, 'turn was already closed by a later turn; answer not recorded');
    if (outcome !== 'aborted' && outcome !== 'cancelled') {
      await options.pruneCheckpoints?.(threadKey).catch((error: unknown) => logger.warn({ err: error }, 'checkpoint pruning failed'));
    }
    await release();
    for (const response of heldForClient) if (!clientSignal.aborted) onEvent(response);
    heldForClient = undefined;
    await eventLog.flush();
    logger.info(
      { traceId: request.traceId, session: request.sessionId, turnId: request.turnId, outcome, durationMs, timingsMs: context.timings, ...usageState() },
      'turn finished',
    );
    options.onTurnEnd?.(outcome, durationMs, events);
    return { sessionId: request.sessionId, finalAnswer, events };
  }

  return {
    get draining() {
      return draining;
    },
    get activeTurns() {
      return active.size;
    },

    async start(request, { signal, onEvent }): Promise<StartedTurn> {
      if (draining) throw new UserError('NOT_READY', 'the server is shutting down; retry the request', { retryAfterSeconds: 2 });
      // The request was validated once at the HTTP edge (`http/chat-request.ts`); it is trusted here.
      // Everything stored for this turn is the user's within the caller's tenant.
      const owner = ownerKey(request.tenant ?? DEFAULT_TENANT, request.userId);
      const sessionId = request.sessionId ?? `s_${randomUUID()}`;
      const turnId = `turn_${randomUUID().replaceAll('-', '')}`;
      const controller = new AbortController();
      const stop = (reason: TurnStopReason) => {
        if (!controller.signal.aborted) controller.abort(reason);
      };

      const leaseKey = sessionLeaseKey(owner, sessionId);
      const tryLease = async () => {
        try {
          return await acquireSessionLease({
            leases: storage.leases,
            key: leaseKey,
            holder: `${replicaId}:${turnId}`,
            ttlMs: leaseTtlMs,
            logger,
            onLost: () => stop('lease_lost'),
          });
        } catch (error) {
          logger.error({ err: error, traceId: request.traceId }, 'turn lease store unreachable');
          throw new UserError('NOT_READY', 'session storage is unavailable; retry shortly', { retryAfterSeconds: 2 });
        }
      };
      let lease = await tryLease();
      if (!lease) {
        const strategy = request.multitaskStrategy ?? 'reject';
        if (strategy === 'reject') throw new UserError('TURN_IN_PROGRESS', `a turn is already running on session ${sessionId}`);
        if (strategy === 'interrupt') {
          // Cancel whatever runs on the session (on any replica), then take over as soon as it let go.
          const running = await storage.transcript.latestTurn(owner, sessionId);
          await storage.signals.publish(cancelChannel(owner, sessionId), running?.status === 'running' ? running.turn_id : '*');
          lease = await waitForLease(tryLease, signal, interruptWaitMs);
        } else {
          lease = await queues.wait(leaseKey, () => waitForLease(tryLease, signal, queueWaitMs));
        }
        if (!lease) throw new UserError('TURN_IN_PROGRESS', `the turn running on session ${sessionId} did not end in time`);
      }
      const held = lease;

      let unsubscribe: (() => Promise<void>) | undefined;
      try {
        const { interrupted } = await storage.transcript.beginTurn({
          turnId,
          userId: owner,
          sessionId,
          query: userMessageText(request),
          traceId: request.traceId,
          createdAt: new Date().toISOString(),
        });
        if (interrupted.length > 0) logger.warn({ session: sessionId, turns: interrupted }, 'earlier turns were cut short; recorded as interrupted');
        unsubscribe = await storage.signals.subscribe(cancelChannel(owner, sessionId), (message) => {
          if (message === turnId || message === '*') stop('user_cancel');
        });
      } catch (error) {
        await unsubscribe?.().catch(() => {});
        await held.release();
        logger.error({ err: error, traceId: request.traceId }, 'writing the turn ahead failed');
        throw new UserError('NOT_READY', 'session storage is unavailable; retry shortly', { retryAfterSeconds: 2 });
      }

      // With on_disconnect "continue" the turn outlives its client; its events stay stored for resume.
      const onClientGone = () => {
        if (request.onDisconnect !== 'continue') stop('client_disconnected');
      };
      if (signal.aborted) onClientGone();
      else signal.addEventListener('abort', onClientGone, { once: true });
      const releaseAll = async () => {
        await unsubscribe?.().catch((error: unknown) => logger.warn({ err: error }, 'cancel unsubscribe failed'));
        await held.release();
      };

      const done = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => execute({ ...request, sessionId, turnId, owner }, controller, signal, releaseAll, onEvent))
        .catch(async (error: unknown): Promise<TurnResult> => {
          logger.error({ traceId: request.traceId, err: error }, 'turn bookkeeping failed');
          await releaseAll();
          const event: ResponseState = {
            type: 'done',
            content: '',
            agent_id: 'supervisor',
            is_thinking: false,
            session_id: sessionId,
            metadata: { stage: 'done', seq: 1, turn_id: turnId },
          };
          if (!signal.aborted) onEvent(event);
          return { sessionId, finalAnswer: '', events: [event] };
        })
        .finally(() => {
          signal.removeEventListener('abort', onClientGone);
          active.delete(turnId);
        });
      active.set(turnId, { controller, done });
      return { sessionId, turnId, done };
    },

    async drain(graceMs) {
      draining = true;
      const running = [...active.values()];
      if (running.length === 0) return;
      logger.info({ turns: running.length, graceMs }, 'draining: waiting for running turns');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(running.map((turn) => turn.done)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
      const left = [...active.values()];
      if (left.length > 0) logger.warn({ turns: left.length }, 'draining: cancelling turns still running after the grace period');
      for (const turn of left) if (!turn.controller.signal.aborted) turn.controller.abort('server_shutdown');
      await Promise.allSettled(left.map((turn) => turn.done));
    },
  };
}
