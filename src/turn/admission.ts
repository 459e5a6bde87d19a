/**
 * Admission: a turn runs only while it holds its session's lease — one turn
 * per session across every replica, so a second turn gets 409 (or waits, or
 * interrupts the first, as its `multitask_strategy` says) rather than
 * interleaving its memory updates with the first. An admitted turn's user row
 * is written ahead and it listens for a cancel. A turn whose process died
 * keeps its lease until the TTL runs out; the next turn on the session then
 * finds it still marked running and records it as interrupted.
 */
import type { Logger } from '../logger.js';
import { UserError } from '../errors.js';
import { acquireSessionLease, sessionLeaseHolder, sessionLeaseKey, type HeldLease } from './session-lease.js';
import { cancelChannel } from './turn-channels.js';
import type { TurnStorage, TurnStopReason } from './runner-options.js';
import type { TurnRequest } from './turn-types.js';
import type { TurnStart } from '../store/index.js';

/** Who and where a turn is, once its ids are made. */
export interface TurnPlace {
  request: TurnRequest;
  owner: string;
  sessionId: string;
  turnId: string;
  /** Stops the turn (lease lost, cancelled). */
  stop: (reason: TurnStopReason) => void;
}

/** What admission needs. */
export interface AdmissionOptions {
  storage: TurnStorage;
  logger: Logger;
  replicaId: string;
  leaseTtlMs: number;
  maxQueuedTurns: number;
  queueWaitMs: number;
}

/** A session's lease as admission took it: where leases live with the transcript, the turn's start was written with it. */
export interface AdmittedLease extends HeldLease {
  begun?: { interrupted: string[]; durable?: Promise<void> };
}

/**
 * Frees the session (the cancel subscription and the lease). Where leases
 * live with the transcript, `finishingLease` hands the lease to the turn's
 * finishing write (`TurnFinish.releaseLease`) and `leaseReleased` says it was stored.
 */
export interface SessionRelease {
  (): Promise<void>;
  /** Settles once the turn's start is durable (at once when the store's writes are durable when they resolve). */
  stored: Promise<void>;
  finishingLease(): { key: string; holder: string } | undefined;
  leaseReleased(): void;
}

/** Lets turns in, one per session. */
export interface Admission {
  /** Takes the session's lease as the request's strategy says; throws `TURN_IN_PROGRESS`, `RATE_LIMITED` or `NOT_READY`. */
  takeLease(place: TurnPlace, clientSignal: AbortSignal): Promise<AdmittedLease>;
  /** Writes the turn ahead (unless it was with the lease) and subscribes to its cancel; returns what frees both. */
  openTurn(place: TurnPlace, lease: AdmittedLease): Promise<SessionRelease>;
}

/** How long a failed start waits before it is written again. */
const START_RETRY_MS = 100;

/** What `beginTurn` writes for the turn in this place. */
function turnStart({ request, owner, sessionId, turnId }: TurnPlace): TurnStart {
  return { turnId, userId: owner, sessionId, query: userMessageText(request), traceId: request.traceId, createdAt: new Date().toISOString() };
}

/** The user's side of a turn in the transcript; a body-only confirmation or choice is recorded by its ids. */
function userMessageText(request: TurnRequest): string {
  if (request.query.trim() !== '') return request.query;
  const parts = [
    request.confirm?.length ? `confirm: ${request.confirm.join(', ')}` : '',
    request.reject?.length ? `reject: ${request.reject.join(', ')}` : '',
    request.choose ? `choose: ${request.choose}` : '',
  ];
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

/** Makes the admission of one runner (its queues are per process). */
export function createAdmission(options: AdmissionOptions): Admission {
  const { storage, logger, replicaId, leaseTtlMs } = options;
  const queues = createSessionQueues(options.maxQueuedTurns);
  const interruptWaitMs = Math.max(leaseTtlMs, 10000);
  // Leases kept with the transcript are taken by the turn's start and let go of by its finish: one write each.
  const withTranscript = storage.leases.withTranscript === true;
  const logInterrupted = (sessionId: string, turns: string[]) =>
    logger.warn({ session: sessionId, turns }, 'earlier turns were cut short; recorded as interrupted');
  /** Writes the turn's start; a failed write is tried once more (a repeated start changes nothing). Settles once durable. */
  const writeStart = async (place: TurnPlace): Promise<void> => {
    const start = turnStart(place);
    let begun: Awaited<ReturnType<TurnStorage['transcript']['beginTurn']>>;
    try {
      begun = await storage.transcript.beginTurn(start);
    } catch (error) {
      logger.warn({ err: error, traceId: place.request.traceId }, 'writing the turn ahead failed; trying once more');
      await new Promise((resolve) => setTimeout(resolve, START_RETRY_MS));
      begun = await storage.transcript.beginTurn(start);
    }
    if (begun.interrupted.length > 0) logInterrupted(place.sessionId, begun.interrupted);
    await begun.durable;
  };
  return {
    async takeLease(place, signal) {
      const { request, owner, sessionId, turnId, stop } = place;
      const leaseKey = sessionLeaseKey(owner, sessionId);
      const holder = sessionLeaseHolder(replicaId, turnId);
      const tryLease = async (): Promise<AdmittedLease | undefined> => {
        try {
          let begun: { interrupted: string[]; durable?: Promise<void> } | undefined;
          const take = async () => {
            const started = await storage.transcript.beginTurn({ ...turnStart(place), lease: { key: leaseKey, holder, ttlMs: leaseTtlMs } });
            if (started.leaseTaken === false) return false;
            begun = { interrupted: started.interrupted, ...(started.durable ? { durable: started.durable } : {}) };
            return true;
          };
          const held = await acquireSessionLease({
            leases: storage.leases,
            key: leaseKey,
            holder,
            ttlMs: leaseTtlMs,
            logger,
            onLost: () => stop('lease_lost'),
            ...(withTranscript ? { take } : {}),
          });
          return held && Object.assign(held, { begun });
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
          lease = await queues.wait(leaseKey, () => waitForLease(tryLease, signal, options.queueWaitMs));
        }
        if (!lease) throw new UserError('TURN_IN_PROGRESS', `the turn running on session ${sessionId} did not end in time`);
      }
      return lease;
    },

    async openTurn(place, held) {
      const { request, owner, sessionId, turnId, stop } = place;
      // Where the lease was taken with the start (SQLite, Postgres alone), the start is written. Where the
      // lease lives elsewhere (Redis), the start row is written while the first frame leaves: the run waits
      // for it, and readers that come before it lands wait for it too (`turn-start-window.ts`, decision 0059).
      const stored = held.begun ? (held.begun.durable ?? Promise.resolve()) : writeStart(place);
      // Awaited by the runner; this handle only keeps a failure from going unhandled before it does.
      stored.catch(() => {});
      if (held.begun && held.begun.interrupted.length > 0) logInterrupted(sessionId, held.begun.interrupted);
      let unsubscribe: (() => Promise<void>) | undefined;
      try {
        // Subscribed before the first frame leaves, so a cancel from a client that saw it reaches this turn.
        unsubscribe = await storage.signals.subscribe(cancelChannel(owner, sessionId), (message) => {
          if (message === turnId || message === '*') stop('user_cancel');
        });
      } catch (error) {
        await held.release();
        logger.error({ err: error, traceId: request.traceId }, 'subscribing to the turn\'s cancel failed');
        throw new UserError('NOT_READY', 'session storage is unavailable; retry shortly', { retryAfterSeconds: 2 });
      }
      const release = async () => {
        await unsubscribe?.().catch((error: unknown) => logger.warn({ err: error }, 'cancel unsubscribe failed'));
        await held.release();
      };
      return Object.assign(release, {
        stored,
        finishingLease: () => (withTranscript ? held.handOver() : undefined),
        leaseReleased: () => held.releasedElsewhere(),
      });
    },
  };
}
