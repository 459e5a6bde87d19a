/**
 * Closes turns whose process died. A turn is written ahead as `running`; if
 * its process is killed, nothing finishes it, and until now it stayed
 * `running` until the next turn on its session noticed. The sweeper looks,
 * every `everyMs`, for turns running longer than the session lease lives
 * (`leaseTtlMs`) whose session lease nobody holds: a live turn renews its
 * lease well within the TTL, so such a turn belongs to a process that is gone,
 * and it is closed as `interrupted`. Every replica may sweep; closing is
 * idempotent (only a running turn is closed).
 */
import type { Logger } from '../logger.js';
import type { Storage } from '../store/index.js';
import { sessionLeaseKey } from './session-lease.js';

export interface TurnSweeper {
  /** One pass now; resolves with the turns it closed. */
  runOnce(): Promise<string[]>;
  stop(): void;
}

export function startTurnSweeper(options: {
  storage: Pick<Storage, 'transcript' | 'leases'>;
  logger: Logger;
  leaseTtlMs: number;
  /** Default: the lease TTL. */
  everyMs?: number;
  now?: () => Date;
}): TurnSweeper {
  const now = options.now ?? (() => new Date());
  let running: Promise<string[]> | undefined;
  const runOnce = () =>
    (running ??= (async () => {
      const closed: string[] = [];
      try {
        const startedBefore = new Date(now().getTime() - options.leaseTtlMs).toISOString();
        for (const turn of await options.storage.transcript.runningTurns(startedBefore, 100)) {
          if ((await options.storage.leases.holder(sessionLeaseKey(turn.user_id, turn.session_id))) !== undefined) continue;
          if (await options.storage.transcript.interruptTurn(turn.turn_id, now().toISOString())) closed.push(turn.turn_id);
        }
        if (closed.length > 0) options.logger.warn({ turns: closed }, 'turns of a process that is gone recorded as interrupted');
      } catch (error) {
        options.logger.warn({ err: error }, 'sweeping interrupted turns failed; retrying at the next pass');
      }
      return closed;
    })().finally(() => (running = undefined)));
  const timer = setInterval(() => void runOnce(), options.everyMs ?? options.leaseTtlMs);
  timer.unref();
  const first = setTimeout(() => void runOnce(), 1000);
  first.unref();
  return {
    runOnce,
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
