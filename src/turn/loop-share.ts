/**
 * Shares the event loop between the turns running and the requests waiting
 * to be read. Node runs every immediate queued before its check phase in one
 * go and polls the sockets only after them: the long synchronous stretches of
 * many turns released together (by one group commit, say) hold the next
 * request's admission, and its first byte, for all of them. A stretch that
 * takes a slot here runs in the check phase of a loop turn, after a poll, in
 * the order the slots were asked for; one loop turn starts further stretches
 * only while it has spent less than `budgetMs` on them (so the writes of a few
 * short ones still share a commit), the next stretch waits for the next poll.
 */

/** Resolves when this caller's loop turn has come; what follows runs before the next poll. */
export type LoopSlot = () => Promise<void>;

/** Makes one queue of slots (one per runner: every turn of the process shares it). */
export function createLoopShare(budgetMs = 4): LoopSlot {
  const waiting: (() => void)[] = [];
  let handingOut = false;
  let loopTurnStart = 0;
  const release = () => {
    waiting.shift()!();
    // A microtask queued now runs early in the stretch; the tick it queues runs once every microtask is done.
    queueMicrotask(() => process.nextTick(afterStretch));
  };
  const afterStretch = () => {
    if (waiting.length === 0) handingOut = false;
    else if (performance.now() - loopTurnStart < budgetMs) release();
    // Called in a check phase: this immediate runs in the next loop turn's, after its poll.
    else setImmediate(handOut);
  };
  const handOut = () => {
    loopTurnStart = performance.now();
    release();
  };
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (!handingOut) {
        handingOut = true;
        setImmediate(handOut);
      }
    });
}
