/**
 * The start window (decision 0059). Where a session's lease lives apart from
 * the transcript (Postgres + Redis), a turn's first frame leaves as soon as
 * the lease is taken, and its start row (`beginTurn`) lands one round trip
 * later. A client that saw the first frame may, in between, ask for the turn
 * on any replica: resume it, cancel it, repeat its request. The rule: while
 * the session's lease names a turn whose row is not there yet, that turn is
 * starting, and a reader waits for its row (polling, at most `waitMs`)
 * instead of answering that nothing is there. A turn id a client got from
 * the turn itself (an event id, an idempotency key's record) is waited for
 * the same way. Where the lease is taken in the start's own write (SQLite,
 * Postgres alone) the row is there whenever the lease is, and nothing waits.
 */
import type { LeaseStore, TranscriptReader, TranscriptStore, TurnRecord } from '../store/index.js';
import { sessionLeaseKey, turnOfLeaseHolder } from './session-lease.js';

export interface TurnStartWindow {
  /**
   * The turn holding the session's lease, with its row: waited for while its start is being written.
   * Undefined when no turn holds the lease, or its row did not come (its start failed, or it let go).
   */
  heldTurn(owner: string, sessionId: string): Promise<TurnRecord | undefined>;
  /** The turn's row; a missing one is polled for up to `waitMs` (the id came from the turn, whose start may be in flight). */
  turnRow(turnId: string): Promise<TurnRecord | undefined>;
  /** `messages`, with a session whose first turn is starting seen as there (its owner's) once that turn's row is. */
  reader(messages: TranscriptReader): TranscriptReader;
  /** How long a missing row is waited for. */
  readonly waitMs: number;
}

export interface TurnStartWindowOptions {
  transcript: Pick<TranscriptStore, 'getTurn'>;
  leases: Pick<LeaseStore, 'holder'>;
  /** Longest wait for a starting turn's row. Default 5000 ms. */
  waitMs?: number;
  /** How often the row is looked for meanwhile. Default 20 ms. */
  pollMs?: number;
}

/** The lease is read again every this many polls, so a wait ends when the starting turn let go of it. */
const LEASE_EVERY = 10;

export function createTurnStartWindow(options: TurnStartWindowOptions): TurnStartWindow {
  const { transcript, leases } = options;
  const waitMs = options.waitMs ?? 5000;
  const pollMs = options.pollMs ?? 20;
  const pause = () => new Promise((resolve) => setTimeout(resolve, pollMs));

  /** Polls for the row until it is there, `stillStarting` says no, or the wait is over. */
  async function waitForRow(turnId: string, stillStarting?: () => Promise<boolean>): Promise<TurnRecord | undefined> {
    const deadline = Date.now() + waitMs;
    for (let polls = 1; ; polls++) {
      const row = await transcript.getTurn(turnId);
      if (row) return row;
      if (Date.now() >= deadline) return undefined;
      if (stillStarting && polls % LEASE_EVERY === 0 && !(await stillStarting())) return transcript.getTurn(turnId);
      await pause();
    }
  }

  const window: TurnStartWindow = {
    waitMs,
    async heldTurn(owner, sessionId) {
      const key = sessionLeaseKey(owner, sessionId);
      const holder = await leases.holder(key);
      if (holder === undefined) return undefined;
      const turnId = turnOfLeaseHolder(holder);
      return waitForRow(turnId, async () => (await leases.holder(key)) === holder);
    },
    turnRow: (turnId) => waitForRow(turnId),
    reader(messages) {
      return {
        async sessionAccess(owner, sessionId) {
          const access = await messages.sessionAccess(owner, sessionId);
          if (access !== 'none') return access;
          // Nobody has the session yet, unless its first turn is starting: the lease's key is this owner's.
          return (await window.heldTurn(owner, sessionId)) ? messages.sessionAccess(owner, sessionId) : 'none';
        },
        listMessages: (owner, sessionId) => messages.listMessages(owner, sessionId),
      };
    },
  };
  return window;
}
