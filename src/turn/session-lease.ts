/**
 * The per-session turn lease, held for the whole turn: taken before the
 * user's row is written, renewed every third of its TTL while the turn runs,
 * released when it ends. A replica that dies stops renewing, so the session
 * is free again at most one TTL later (see docs/decisions on leases). A turn
 * that can no longer renew (another holder took the lease after a long
 * stall) is told through `onLost` and cancels itself.
 */
import type { Logger } from '../logger.js';
import type { LeaseStore } from '../store/index.js';

export interface HeldLease {
  release(): Promise<void>;
  /**
   * For a finishing write that lets go of the lease itself (`TurnFinish.releaseLease`):
   * renewal stops and the lease is returned; `release` still deletes it unless `releasedElsewhere` follows.
   */
  handOver(): { key: string; holder: string };
  /** The finishing write stored: the lease is gone, `release` has nothing left to delete. */
  releasedElsewhere(): void;
}

/** The lease key of a session (sessions are namespaced per user). */
export function sessionLeaseKey(userId: string, sessionId: string): string {
  return `session:${userId.length}:${userId}:${sessionId}`;
}

/** The holder a turn takes its session's lease as: the replica, then the turn id. */
export function sessionLeaseHolder(replicaId: string, turnId: string): string {
  return `${replicaId}:${turnId}`;
}

/** The turn a session lease's holder names (what follows its last colon). */
export function turnOfLeaseHolder(holder: string): string {
  return holder.slice(holder.lastIndexOf(':') + 1);
}

/**
 * Takes the lease or returns undefined when another holder has it. Throws
 * when the lease store cannot be reached (the caller answers 503). `take`
 * replaces the store's `acquire` (a turn's start that takes the lease in its
 * own write, `TurnStart.lease`).
 */
export async function acquireSessionLease(options: {
  leases: LeaseStore;
  key: string;
  holder: string;
  ttlMs: number;
  logger: Logger;
  onLost: () => void;
  take?: () => Promise<boolean>;
}): Promise<HeldLease | undefined> {
  const { leases, key, holder, ttlMs, logger } = options;
  if (!(await (options.take ? options.take() : leases.acquire(key, holder, ttlMs)))) return undefined;
  let released = false;
  let renewing = true;
  const renewEvery = Math.max(50, Math.floor(ttlMs / 3));
  const timer = setInterval(() => {
    leases.renew(key, holder, ttlMs).then(
      (kept) => {
        if (!kept && !released && renewing) {
          logger.warn({ key, holder }, 'turn lease lost; cancelling the turn');
          options.onLost();
        }
      },
      (error: unknown) => logger.warn({ err: error, key }, 'renewing the turn lease failed; retrying'),
    );
  }, renewEvery);
  timer.unref();
  return {
    handOver() {
      renewing = false;
      clearInterval(timer);
      return { key, holder };
    },
    releasedElsewhere() {
      released = true;
      clearInterval(timer);
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await leases.release(key, holder).catch((error: unknown) => logger.warn({ err: error, key }, 'releasing the turn lease failed; it expires by itself'));
    },
  };
}
