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
}

/** The lease key of a session (sessions are namespaced per user). */
export function sessionLeaseKey(userId: string, sessionId: string): string {
  return `session:${userId.length}:${userId}:${sessionId}`;
}

/**
 * Takes the lease or returns undefined when another holder has it. Throws
 * when the lease store cannot be reached (the caller answers 503).
 */
export async function acquireSessionLease(options: {
  leases: LeaseStore;
  key: string;
  holder: string;
  ttlMs: number;
  logger: Logger;
  onLost: () => void;
}): Promise<HeldLease | undefined> {
  const { leases, key, holder, ttlMs, logger } = options;
  if (!(await leases.acquire(key, holder, ttlMs))) return undefined;
  let released = false;
  const renewEvery = Math.max(50, Math.floor(ttlMs / 3));
  const timer = setInterval(() => {
    leases.renew(key, holder, ttlMs).then(
      (kept) => {
        if (!kept && !released) {
          logger.warn({ key, holder }, 'turn lease lost; cancelling the turn');
          options.onLost();
        }
      },
      (error: unknown) => logger.warn({ err: error, key }, 'renewing the turn lease failed; retrying'),
    );
  }, renewEvery);
  timer.unref();
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await leases.release(key, holder).catch((error: unknown) => logger.warn({ err: error, key }, 'releasing the turn lease failed; it expires by itself'));
    },
  };
}
