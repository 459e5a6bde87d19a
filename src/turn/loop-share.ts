/**
 * Shares the event loop between the turns running and the requests waiting
 * to be read. Node runs every immediate queued before its check phase in one
 * go and polls the sockets only after them: the long synchronous stretches of
 * many turns released together (by one group commit, say) hold the next
 * request's admission, and its first byte, for all of them. A stretch that
 * takes a slot here runs in a loop turn of its own, after a poll: slots are
 * handed out one per loop turn, in the order they were asked for.
 */

/** Resolves when this caller's loop turn has come; what follows runs before the next poll. */
export type LoopSlot = () => Promise<void>;

/** Makes one queue of slots (one per runner: every turn of the process shares it). */
export function createLoopShare(): LoopSlot {
  const waiting: (() => void)[] = [];
  let scheduled = false;
  const handOut = () => {
    // Called in a check phase: the next call is queued for the next loop turn's, after its poll.
    const next = waiting.shift();
    scheduled = waiting.length > 0;
    if (scheduled) setImmediate(handOut);
    next?.();
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!scheduled) {
        scheduled = true;
        setImmediate(handOut);
      }
    });
}
