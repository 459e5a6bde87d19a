/**
 * One admitted turn, start to finish: the graph runs on the registry snapshot
 * of the turn's start with the turn's context (budget, signal, task recorder),
 * its events go through the pipeline while it runs, and a stopped or failed
 * graph still ends with a `final` the user can read. Each event is stored as
 * sent and each sub-task recorded before it is sent.
 */
import type { SessionRelease } from './admission.js';
import type { TextScrubber } from '../text/index.js';
import { checkpointThread, type TurnOutcome } from '../store/index.js';
import { intentStartText, turnFailedText, turnStoppedText, type Language } from '../i18n/index.js';
import { announcesEarly, readMessage } from '../understanding/index.js';
import type { AgentCallRecord, NodeEvent, OutputGuard, TaskRecorder, TurnContext } from '../graph/index.js';
import type { LlmUsage } from '../llm/index.js';
import type { ResponseState } from '../events/index.js';
import type { RegistrySnapshot } from '../registry/index.js';
import { startTurnBudgets } from './budget-clock.js';
import { createEventPipeline } from './event-pipeline.js';
import { finishTurn } from './finish-turn.js';
import type { LoopSlot } from './loop-share.js';
import { stopReasonOf, type TurnRunnerOptions, type TurnStopReason } from './runner-options.js';
import { createStreamGovernor, DEFAULT_STREAM_CAPS, type StreamCaps } from './stream-caps.js';
import type { RecordedTurn } from './task-records.js';
import { turnEventsChannel } from './turn-channels.js';
import { createTurnEventLog } from './turn-event-log.js';
import { summariseTurnUsage } from './turn-usage.js';
import type { TurnRequest, TurnResult } from './turn-types.js';

/** What the runner hands every turn it runs. */
export interface TurnRunParts {
  /** The output guard of a snapshot, with agent names in `language`. */
  guardFor: (snapshot: RegistrySnapshot, language?: Language) => OutputGuard;
  dataGuardFor: (snapshot: RegistrySnapshot) => TextScrubber;
  recorderFor: (turn: RecordedTurn, snapshot: RegistrySnapshot) => TaskRecorder;
  /** The loop turn in which the graph's first steps, and later the turn's finish, may run (`loop-share.ts`). */
  loopSlot: LoopSlot;
}

/** An admitted turn, with its ids and its owner. */
export type AdmittedTurn = TurnRequest & { sessionId: string; turnId: string; owner: string };

/** Runs admitted turns (the runner's `execute`). */
export type TurnRun = (
  request: AdmittedTurn,
  controller: AbortController,
  clientSignal: AbortSignal,
  release: SessionRelease,
  onEvent: (event: ResponseState) => void,
  /**
   * Eager (the run starts in the loop turn of the admission): the turn's start, durable once this settles.
   * The first frame is made at once; the rest of the run waits for the next loop turn and for this.
   */
  eagerStored?: Promise<void>,
) => Promise<TurnResult>;

/** Makes the function that runs one admitted turn. */
export function createTurnRun(options: TurnRunnerOptions, parts: TurnRunParts): TurnRun {
  const { logger } = options;
  const now = options.now ?? (() => new Date());
  const budgetGraceMs = options.budgetGraceMs ?? 5000;
  const streamCaps: StreamCaps = { ...DEFAULT_STREAM_CAPS, ...options.streamCaps };

  return async (request, controller, clientSignal, release, onEvent, eagerStored) => {
    const startedAt = Date.now();
    const signal = controller.signal;
    const snapshot = options.registry.current();
    // The message is read once, here, before anything routes it; every step reads this reading, not the text.
    const message = readMessage(request.query, snapshot);
    const guard = parts.guardFor(snapshot, message.asRequest.language);
    const scrubData = parts.dataGuardFor(snapshot).scrub;
    const budgets = startTurnBudgets({ snapshot, logger, traceId: request.traceId, onReached: options.onBudgetReached, controller, graceMs: budgetGraceMs });
    const { budget } = budgets;
    const usage: LlmUsage = { calls: [], budget: budget.llm };
    const agentCalls: AgentCallRecord[] = [];
    const usageState = () => ({ ...(options.summariseUsage ? { llm: options.summariseUsage(usage) } : {}), usage: summariseTurnUsage(usage, agentCalls) });
    const progress = createStreamGovernor(streamCaps, (cap, agentId, first) => {
      if (first) logger.warn({ traceId: request.traceId, cap, agent: agentId, limits: streamCaps }, 'agent progress over its cap; further progress of this turn dropped');
      options.onStreamDrop?.(cap, first);
    });
    const droppedState = () => {
      const dropped = progress.dropped();
      return dropped.events_per_turn + dropped.agent_stream_bytes > 0 ? { agent_stream_dropped: dropped } : {};
    };
    const eventLog = createTurnEventLog({
      events: options.storage.events,
      turnId: request.turnId,
      logger,
      onStored: options.announceEvents
        ? (lastSeq) => void options.storage.signals.publish(turnEventsChannel(request.turnId), String(lastSeq)).catch(() => {})
        : undefined,
    });
    const pipeline = createEventPipeline({
      sessionId: request.sessionId,
      turnId: request.turnId,
      guard,
      scrubData,
      eventLog,
      clientSignal,
      onEvent,
      closingState: () => ({ ...usageState(), ...budgets.state(), ...droppedState() }),
      startedAt,
    });
    const send = pipeline.send;
    let outcome: Exclude<TurnOutcome, 'interrupted'> = 'completed';

    const context: TurnContext = {
      snapshot,
      signal,
      now: now(),
      traceId: request.traceId,
      language: message.asRequest.language,
      message,
      usage,
      timings: {},
      turnId: request.turnId,
      delegationDepth: (request.delegationDepth ?? 0) + 1,
      owner: request.owner,
      tasks: parts.recorderFor(request, snapshot),
      budget,
      admitProgress: (agentId, content) => progress.admit(agentId, content),
      agentCalls,
    };
    const threadKey = checkpointThread(request.owner, request.sessionId);
    // The first frame leaves before any storage read or recognition when the message's own words fix its
    // language (an id-only or empty message is answered in the session's language, known only from storage)
    // and it is a request, not a bare yes / no / cancel word (those are answered without recognition).
    if (announcesEarly(message)) send({ stage: 'intent_start', content: intentStartText(context.language), agent_id: 'supervisor', is_thinking: true });
    let stopReason: TurnStopReason | undefined;
    try {
      // A start that could not be stored fails the turn (its done says so), not only its first frame.
      if (eagerStored) await eagerStored;
      // The graph's first steps (recognition, the plan) run in a loop turn of their own, after the caller sent
      // the first frame and after the sockets were polled: not in a row with other turns' steps.
      await parts.loopSlot();
      const stream = await options.graph.stream(
        { query: request.query, user_id: request.userId, thread_id: request.sessionId, confirm: request.confirm ?? [], reject: request.reject ?? [], choose: request.choose ?? null },
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
      budgets.stop();
    }

    // The finish (the answer row, the record, `done`) is the turn's other long stretch: it waits for a slot too.
    await parts.loopSlot();
    return finishTurn(options, { request, snapshot, context, outcome, stopReason, startedAt, threadKey, pipeline, eventLog, release, usageState });
  };
}
