/**
 * How many calls to one agent may be in flight at once (`endpoint.max_connections`,
 * default `supervisor.max_connections_per_agent`), and what a call does when
 * they are all taken: it waits a bounded time for one to come free, then fails
 * with `busy`. Before, every agent origin shared one undici pool of 64
 * connections and a 65th stream waited silently in the pool's queue, eating
 * its timeout while its progress was lost. Now the pools themselves are
 * unbounded and this limiter is the one place the cap lives, per agent as the
 * registry names it, with the waiting calls counted for `/metrics`.
 *
 * Hand-written rather than a library's semaphore: what is ours is the bounded
 * wait that ends in a typed failure, the abort of a wait by the caller's
 * signal, the limit that changes with a reload, and the counts per agent.
 */

/** A slot held by one call; `release` gives it back (once; later calls do nothing). */
export interface ConnectionSlot {
  release(): void;
}

/** Why no slot was had. */
export type SlotRefusal = { reason: 'busy'; limit: number; waitedMs: number } | { reason: 'aborted' };

/** Hooks for the metrics: the waiting calls of an agent, and how long each wait took. */
export interface ConnectionLimitHooks {
  onWaiting?(agentId: string, waiting: number): void;
  onWaited?(agentId: string, seconds: number): void;
}

/** The limiter of an agent client. */
export interface ConnectionLimits {
  /** Takes a slot for a call to `agentId` (limit `limit`), waiting at most `maxWaitMs`. */
  acquire(agentId: string, limit: number, maxWaitMs: number, signal?: AbortSignal): Promise<ConnectionSlot | SlotRefusal>;
  /** Calls in flight and waiting, per agent (for tests and the console). */
  state(agentId: string): { active: number; waiting: number };
}

interface Waiter {
  grant(): void;
}

interface AgentSlots {
  active: number;
  /** The limit the latest call brought (the registry's current one: a reload may raise or lower it). */
  limit: number;
  readonly queue: Waiter[];
}

/** Creates the limiter (one per agent client). */
export function createConnectionLimits(hooks: ConnectionLimitHooks = {}): ConnectionLimits {
  const agents = new Map<string, AgentSlots>();
  const slotsOf = (agentId: string, limit: number): AgentSlots => {
    let slots = agents.get(agentId);
    if (!slots) agents.set(agentId, (slots = { active: 0, limit, queue: [] }));
    slots.limit = limit;
    return slots;
  };

  /** Gives free slots to the waiting calls, first come first served, up to the current limit. */
  const grantWaiting = (agentId: string, slots: AgentSlots): void => {
    while (slots.queue.length > 0 && slots.active < slots.limit) {
      slots.active += 1;
      slots.queue.shift()!.grant();
    }
    if (slots.active === 0 && slots.queue.length === 0) agents.delete(agentId);
  };

  const slotFor = (agentId: string, slots: AgentSlots): ConnectionSlot => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        slots.active -= 1;
        grantWaiting(agentId, slots);
      },
    };
  };

  return {
    acquire(agentId, limit, maxWaitMs, signal) {
      if (signal?.aborted) return Promise.resolve({ reason: 'aborted' });
      const slots = slotsOf(agentId, limit);
      if (slots.active < limit && slots.queue.length === 0) {
        slots.active += 1;
        return Promise.resolve(slotFor(agentId, slots));
      }
      const startedAt = performance.now();
      return new Promise((resolve) => {
        const leave = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const index = slots.queue.indexOf(waiter);
          if (index >= 0) slots.queue.splice(index, 1);
          hooks.onWaiting?.(agentId, slots.queue.length);
          hooks.onWaited?.(agentId, (performance.now() - startedAt) / 1000);
        };
        const waiter: Waiter = {
          grant() {
            leave();
            resolve(slotFor(agentId, slots));
          },
        };
        const onAbort = () => {
          leave();
          resolve({ reason: 'aborted' });
        };
        const timer = setTimeout(() => {
          leave();
          resolve({ reason: 'busy', limit, waitedMs: Math.round(performance.now() - startedAt) });
        }, Math.max(0, maxWaitMs));
        signal?.addEventListener('abort', onAbort, { once: true });
        slots.queue.push(waiter);
        hooks.onWaiting?.(agentId, slots.queue.length);
        grantWaiting(agentId, slots); // a raised limit serves the calls already waiting, this one after them
      });
    },
    state(agentId) {
      const slots = agents.get(agentId);
      return { active: slots?.active ?? 0, waiting: slots?.queue.length ?? 0 };
    },
  };
}

/** How long a call waits for a free connection: a short, bounded share of its timeout (never all of it). */
export function connectionWaitMs(timeoutMs: number): number {
  return Math.max(1, Math.min(2_000, Math.floor(timeoutMs / 2)));
}
