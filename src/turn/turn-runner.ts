/**
 * Runs user turns through the supervisor graph and turns node events into
 * numbered `ResponseState` events while the graph runs.
 *
 * The turn's life, in order: admission (`admission.ts`: the session's lease,
 * the queue or interrupt, the user's row written ahead), the run
 * (`run-turn.ts`: the graph with its budgets, every event through
 * `event-pipeline.ts`), and the finish (`finish-turn.ts`: the answer row,
 * the lease released, `done`). This file holds what spans turns: the turns
 * running in this process, and draining them at shutdown.
 */
import { randomUUID } from 'node:crypto';
import { UserError } from '../errors.js';
import type { ResponseState } from '../events/index.js';
import { DEFAULT_TENANT, ownerKey } from '../store/index.js';
import { createAdmission } from './admission.js';
import { createDataGuards, createOutputGuards } from './event-pipeline.js';
import { createLoopShare } from './loop-share.js';
import { createTurnRun } from './run-turn.js';
import type { TurnRunnerOptions, TurnStopReason } from './runner-options.js';
import { createTaskRecords } from './task-records.js';
import type { StartedTurn, TurnResult, TurnRunner } from './turn-types.js';

export type { TurnRunnerOptions, TurnStorage, TurnStopReason } from './runner-options.js';

interface ActiveTurn {
  controller: AbortController;
  done: Promise<TurnResult>;
}

/** Makes the process's turn runner. */
export function createTurnRunner(options: TurnRunnerOptions): TurnRunner {
  const { storage, logger } = options;
  const execute = createTurnRun(options, {
    guardFor: createOutputGuards(),
    dataGuardFor: createDataGuards(),
    recorderFor: createTaskRecords(storage, logger),
    loopSlot: createLoopShare(),
  });
  const admission = createAdmission({
    storage,
    logger,
    replicaId: options.replicaId ?? `r_${randomUUID().slice(0, 8)}`,
    leaseTtlMs: options.leaseTtlMs ?? 15000,
    maxQueuedTurns: options.maxQueuedTurns ?? 5,
    queueWaitMs: options.queueWaitMs ?? 120000,
  });
  const active = new Map<string, ActiveTurn>();
  let draining = false;

  return {
    get draining() {
      return draining;
    },
    get activeTurns() {
      return active.size;
    },

    async start(request, { signal, onEvent, eager = false }): Promise<StartedTurn> {
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
      const place = { request, owner, sessionId, turnId, stop };
      const held = await admission.takeLease(place, signal);
      const opened = await admission.openTurn(place, held);
      const releaseAll = opened;
      // Eager: the first frame may leave before the turn's start is durable; the run waits for it right after.
      if (!eager) {
        try {
          await opened.stored;
        } catch (error) {
          await releaseAll();
          logger.error({ err: error, traceId: request.traceId }, 'writing the turn ahead failed');
          throw new UserError('NOT_READY', 'session storage is unavailable; retry shortly', { retryAfterSeconds: 2 });
        }
      }

      // With on_disconnect "continue" the turn outlives its client; its events stay stored for resume.
      const onClientGone = () => {
        if (request.onDisconnect !== 'continue') stop('client_disconnected');
      };
      if (signal.aborted) onClientGone();
      else signal.addEventListener('abort', onClientGone, { once: true });

      // Eager: the run's first step (the message read, the first frame) follows in this loop turn, not the next.
      const done = new Promise<void>((resolve) => (eager ? resolve() : setImmediate(resolve)))
        .then(() => execute({ ...request, sessionId, turnId, owner }, controller, signal, releaseAll, onEvent, eager ? opened.stored : undefined))
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
