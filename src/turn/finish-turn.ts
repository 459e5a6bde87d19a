/**
 * The finish of a turn: `done` is made with the outcome (turn-outcome.ts), the
 * duration and the timings, and held back from the client; the answer row is
 * written in one storage write with the events not stored yet (the answer's
 * and `done`), the checkpoints pruned, the session's lease released — so the
 * client's next turn is never refused — then the held events go out, the
 * event log is flushed and the turn is counted.
 */
import type { Logger } from '../logger.js';
import type { SessionRelease } from './admission.js';
import type { RegistrySnapshot } from '../registry/index.js';
import type { TurnOutcome } from '../store/index.js';
import type { TurnContext } from '../graph/index.js';
import type { EventPipeline } from './event-pipeline.js';
import type { TurnRunnerOptions, TurnStopReason } from './runner-options.js';
import type { TurnEventLog } from './turn-event-log.js';
import type { TurnRequest, TurnResult } from './turn-types.js';
import { decideTurnOutcome } from './turn-outcome.js';
import { buildTurnRecord } from './turn-record.js';
import { summariseTurnUsage } from './turn-usage.js';

/** How a turn ended, as its run saw it. */
export interface TurnEnding {
  request: TurnRequest & { sessionId: string; turnId: string; owner: string };
  snapshot: RegistrySnapshot;
  context: TurnContext;
  outcome: Exclude<TurnOutcome, 'interrupted'>;
  stopReason: TurnStopReason | undefined;
  startedAt: number;
  threadKey: string;
  pipeline: EventPipeline;
  eventLog: TurnEventLog;
  /** Frees the session (lease and cancel subscription); its lease may go with the answer row. */
  release: SessionRelease;
  /** The model usage for the last log line. */
  usageState: () => Record<string, unknown>;
}

/** What finishing needs from the runner. */
export type FinishOptions = Pick<TurnRunnerOptions, 'storage' | 'logger' | 'pruneCheckpoints' | 'onTurnEnd' | 'onModelCalls'>;

/** Closes the turn and returns its result. */
export async function finishTurn(options: FinishOptions, ending: TurnEnding): Promise<TurnResult> {
  const { storage, logger } = options;
  const { request, context, outcome, stopReason, pipeline } = ending;
  // The turn's end is one write: the events not yet stored (the answer's, and `done`) go with the answer row.
  // The client sees `done` only after the session is free, so its next turn is never refused.
  const durationMs = Date.now() - ending.startedAt;
  const unresolved = pipeline.unresolved();
  pipeline.holdForClient();
  // The one word the client, /metrics and the log line say about this turn.
  const said = decideTurnOutcome(outcome, pipeline.events);
  pipeline.send(
    {
      stage: 'done',
      content: '',
      agent_id: 'supervisor',
      is_thinking: false,
      state: {
        trace_id: request.traceId,
        turn_id: request.turnId,
        outcome: said,
        ...(outcome === 'completed' && unresolved ? { unresolved_reason: 'verify_failed' } : {}),
        ...(stopReason && stopReason !== 'client_disconnected' ? { reason: stopReason } : {}),
        ...(context.answerCached && outcome === 'completed' ? { cached: true } : {}),
        duration_ms: durationMs,
        timings_ms: { ...context.timings },
      },
    },
    'done',
  );
  const finalAnswer = pipeline.finalAnswer();
  const record = buildTurnRecord({
    turnId: request.turnId,
    sessionId: request.sessionId,
    owner: request.owner,
    traceId: request.traceId,
    startedAt: ending.startedAt,
    query: request.query,
    message: context.message,
    answer: finalAnswer,
    outcome: said,
    durationMs,
    registryVersion: ending.snapshot.version,
    ...(context.sessionTurn !== undefined ? { sessionTurn: context.sessionTurn } : {}),
    events: pipeline.events,
    offsets: pipeline.offsets,
    timings: context.timings,
    usage: summariseTurnUsage(context.usage, context.agentCalls ?? []),
    agentCalls: context.agentCalls ?? [],
  });
  const lastEvents = ending.eventLog.takeQueued();
  // Where leases live with the transcript, the session's lease is let go of in the same write.
  const lease = ending.release.finishingLease();
  let recorded: boolean;
  try {
    recorded = await storage.transcript.finishTurn(request.turnId, {
      ...(lease ? { releaseLease: lease } : {}),
      content: finalAnswer,
      outcome,
      createdAt: new Date().toISOString(),
      metadata: { registry_version: ending.snapshot.version, ...(stopReason && stopReason !== 'client_disconnected' ? { reason: stopReason } : {}) },
      events: lastEvents,
      record,
    });
  } catch (error) {
    // The events still get their own write (resume reads them); the turn's bookkeeping failure goes on up.
    ending.eventLog.requeue(lastEvents);
    await ending.eventLog.flush();
    throw error;
  }
  ending.eventLog.storedElsewhere(lastEvents);
  if (lease) ending.release.leaseReleased();
  if (!recorded) logger.warn({ traceId: request.traceId, turnId: request.turnId }, 'turn was already closed by a later turn; answer not recorded');
  if (outcome !== 'aborted' && outcome !== 'cancelled') {
    await options.pruneCheckpoints?.(ending.threadKey).catch((error: unknown) => logger.warn({ err: error }, 'checkpoint pruning failed'));
  }
  await ending.release();
  pipeline.releaseToClient();
  await ending.eventLog.flush();
  logger.info(
    { traceId: request.traceId, session: request.sessionId, turnId: request.turnId, outcome: said, durationMs, timingsMs: context.timings, ...ending.usageState() },
    'turn finished',
  );
  options.onModelCalls?.(context.usage.calls);
  options.onTurnEnd?.(outcome, durationMs, pipeline.events);
  return { sessionId: request.sessionId, finalAnswer, events: pipeline.events };
}
