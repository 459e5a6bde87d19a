/**
 * Resume and cancel from any replica. A turn's events are stored as they are
 * sent; a follower replays what is stored after the client's last event and
 * then keeps reading as more is stored, until the `done` event. It is woken by
 * a signal after each stored batch where signals are cheap (SQLite in-process,
 * Redis) and polls otherwise, so it never depends on a signal arriving.
 * Cancel is a signal to whichever replica runs the session's turn. A turn
 * whose start row is still being written is waited for, not unknown
 * (turn-start-window.ts).
 */
import type { Storage, StoredEvent } from '../store/index.js';
import { safeJsonParse } from '../util/index.js';
import { cancelChannel, turnEventsChannel } from './turn-channels.js';
import { createTurnStartWindow } from './turn-start-window.js';

/** Where a resume starts. */
export type ResumePoint = { ok: true; turnId: string; afterSeq: number } | { ok: false; reason: 'bad_id' | 'not_found' };

export interface TurnFeed {
  /** The turn named by `lastEventId` (`<turn_id>:<seq>`), or the session's latest turn from its start. */
  resumePoint(userId: string, sessionId: string, lastEventId?: string): Promise<ResumePoint>;
  /**
   * True when nothing will ever follow `afterSeq` in this turn: the id is at or
   * past its `done` event, or the turn is no longer running and nothing is
   * stored after it (docs/api.md#streams-and-trace-context: such a resume answers 204).
   */
  exhausted(turnId: string, afterSeq: number): Promise<boolean>;
  /** Hands over stored events after `afterSeq`, then new ones, until `done`, the signal, or a long silence. */
  follow(turnId: string, afterSeq: number, onEvent: (event: StoredEvent) => void, signal: AbortSignal): Promise<void>;
  /** Asks the replica running the session's turn to cancel it; false when no turn is running. */
  cancel(userId: string, sessionId: string): Promise<{ turnId: string } | undefined>;
}

// The turn id is opaque to clients: any id of this form is looked up, and one that names no turn is unknown (404), not malformed.
const EVENT_ID = /^([A-Za-z0-9_.-]{1,128}):(\d{1,9})$/;

/** Splits an SSE event id `<turn_id>:<seq>`; undefined when it is not one. */
export function parseEventId(eventId: string): { turnId: string; seq: number } | undefined {
  const match = EVENT_ID.exec(eventId.trim());
  return match ? { turnId: match[1]!, seq: Number(match[2]) } : undefined;
}

function isDone(event: StoredEvent): boolean {
  const parsed = safeJsonParse(event.data);
  return parsed.ok && (parsed.value as { type?: unknown })?.type === 'done';
}

export function createTurnFeed(options: {
  storage: Pick<Storage, 'transcript' | 'events' | 'signals' | 'leases'>;
  /** Stored batches are announced on the signal bus (else followers poll faster). */
  announced: boolean;
  /** A follower gives up after this long without a new event from a turn that is not running. Default 2000 ms. */
  settleMs?: number;
  /** ...or from a turn still marked running (its replica may have died). Default 60000 ms. */
  idleMs?: number;
  /** Longest wait for the row of a turn whose start is being written (turn-start-window.ts). Default 5000 ms. */
  startWaitMs?: number;
}): TurnFeed {
  const { transcript, events, signals, leases } = options.storage;
  const window = createTurnStartWindow({ transcript, leases, waitMs: options.startWaitMs });
  const pollMs = options.announced ? 1000 : 250;
  const settleMs = options.settleMs ?? 2000;
  const idleMs = options.idleMs ?? 60000;

  return {
    async resumePoint(userId, sessionId, lastEventId) {
      if (lastEventId === undefined) {
        const latest = await transcript.latestTurn(userId, sessionId);
        if (latest?.status === 'running') return { ok: true, turnId: latest.turn_id, afterSeq: 0 };
        // A turn may be starting after the latest row (its lease is taken, its row not written yet).
        const starting = await window.heldTurn(userId, sessionId);
        const turn = starting ?? latest;
        return turn ? { ok: true, turnId: turn.turn_id, afterSeq: 0 } : { ok: false, reason: 'not_found' };
      }
      const named = parseEventId(lastEventId);
      if (!named) return { ok: false, reason: 'bad_id' };
      let turn = await transcript.getTurn(named.turnId);
      if (!turn) {
        // Not written yet is not unknown when it is the turn holding the session's lease.
        const starting = await window.heldTurn(userId, sessionId);
        if (starting?.turn_id === named.turnId) turn = starting;
      }
      if (!turn || turn.user_id !== userId || turn.session_id !== sessionId) return { ok: false, reason: 'not_found' };
      return { ok: true, turnId: turn.turn_id, afterSeq: named.seq };
    },

    async exhausted(turnId, afterSeq) {
      if (afterSeq <= 0) return false;
      const stored = await events.listEvents(turnId, 0);
      const done = stored.find(isDone);
      if (done) return afterSeq >= done.seq;
      if (stored.some((event) => event.seq > afterSeq)) return false;
      const turn = await window.turnRow(turnId);
      return !turn || turn.status !== 'running';
    },

    async follow(turnId, afterSeq, onEvent, signal) {
      let wake = () => {};
      const unsubscribe = await signals.subscribe(turnEventsChannel(turnId), () => wake());
      let last = afterSeq;
      const followedAt = Date.now();
      let quietSince = followedAt;
      try {
        while (!signal.aborted) {
          const batch = await events.listEvents(turnId, last);
          for (const event of batch) {
            onEvent(event);
            last = event.seq;
            if (isDone(event)) return;
          }
          if (batch.length > 0) quietSince = Date.now();
          else {
            const turn = await transcript.getTurn(turnId);
            const quietMs = Date.now() - quietSince;
            // A missing row is a start still being written, for a while (turn-start-window.ts).
            if (!turn && Date.now() - followedAt > window.waitMs) return;
            if ((turn && turn.status !== 'running' && quietMs > settleMs) || quietMs > idleMs) return;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
            signal.addEventListener('abort', wake, { once: true });
          });
        }
      } finally {
        await unsubscribe();
      }
    },

    async cancel(userId, sessionId) {
      const latest = await transcript.latestTurn(userId, sessionId);
      // Not running yet may be starting: the turn holding the lease, once its row (and so its cancel subscription) is there.
      const running = latest?.status === 'running' ? latest : await window.heldTurn(userId, sessionId);
      if (!running || running.status !== 'running') return undefined;
      await signals.publish(cancelChannel(userId, sessionId), running.turn_id);
      return { turnId: running.turn_id };
    },

  };
}
