/**
 * Stores a turn's events as they are sent, for resume. Writes are batched: an
 * event starts a write at once when none is in flight, and events produced
 * meanwhile go out together with the next one, so a fast turn costs a few
 * database round trips instead of one per event while a slow one is stored
 * event by event. Once the turn has its answer, what follows waits for the
 * turn's end and is stored with the answer row (one write). After each stored
 * batch, `onStored` runs (live followers on other replicas are told there is
 * more to read).
 */
import type { Logger } from '../logger.js';
import type { StoredEvent, TurnEventStore } from '../store/index.js';

export interface TurnEventLog {
  /** Queues one serialised event. */
  append(event: StoredEvent): void;
  /** Resolves when everything queued so far is stored (or its write failed and was logged). */
  flush(): Promise<void>;
  /**
   * From now on events wait in the queue for the turn's end write (`takeQueued`)
   * instead of starting writes of their own; `flush` writes what is left.
   */
  holdUntilEnd(): void;
  /** Hands over the events queued and not yet being written, for a write of the caller's (the turn's end). */
  takeQueued(): StoredEvent[];
  /** Puts events taken with `takeQueued` back (the caller's write failed); they are written as usual. */
  requeue(events: readonly StoredEvent[]): void;
  /** Tells followers that events taken with `takeQueued` are stored. */
  storedElsewhere(events: readonly StoredEvent[]): void;
}

export function createTurnEventLog(options: {
  events: TurnEventStore;
  turnId: string;
  logger: Logger;
  onStored?: (lastSeq: number) => void;
}): TurnEventLog {
  let queued: StoredEvent[] = [];
  let writing: Promise<void> | undefined;
  let held = false;

  const writeQueued = async (): Promise<void> => {
    while (queued.length > 0 && !held) {
      const batch = queued;
      queued = [];
      try {
        await options.events.appendEvents(options.turnId, batch);
        options.onStored?.(batch[batch.length - 1]!.seq);
      } catch (error) {
        options.logger.warn({ err: error, turnId: options.turnId, events: batch.length }, 'storing turn events failed');
      }
    }
  };

  const start = () => {
    writing ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(writeQueued)
      .finally(() => {
        writing = undefined;
        if (queued.length > 0) start();
      });
    return writing;
  };

  return {
    append(event) {
      queued.push(event);
      if (!held) start();
    },
    async flush() {
      held = false;
      while (writing || queued.length > 0) await (writing ?? start());
    },
    holdUntilEnd() {
      held = true;
    },
    requeue(events) {
      queued = [...events, ...queued];
      held = false;
    },
    takeQueued() {
      const taken = queued;
      queued = [];
      return taken;
    },
    storedElsewhere(events) {
      if (events.length > 0) options.onStored?.(events[events.length - 1]!.seq);
    },
  };
}
