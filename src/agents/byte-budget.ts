/**
 * One budget, for the whole process, of sub-agent bytes in flight: read from
 * a socket but not yet handled (decoded, parsed, relayed). Per-turn caps bound
 * what one turn relays and per-call caps what one reply may be, but twenty
 * flooding agents at once still had the event loop handle all their bytes as
 * fast as the sockets gave them, and `/healthz` and ordinary turns waited
 * behind them. Every body reader takes its chunk's bytes from this budget
 * before handling it and gives them back after; while the budget is used up
 * the readers wait (their sockets fill and TCP slows the agents down). A
 * chunk's bytes count until the event loop has had a turn after it was
 * handled, so the budget bounds the sub-agent bytes handled between two turns
 * of the loop.
 *
 * The bytes undici buffers count too: a reply body read through the
 * keep-alive pools is taken in as undici hands each chunk over and counted
 * from then (`budgeted-body.ts`), and its stream is paused (its socket with
 * it) while the budget is at its limit; what undici may still hold uncounted
 * is one paused body's buffer (`AGENT_BODY_HIGH_WATER_MARK`) plus one socket
 * read per open reply (decision 0044).
 *
 * Default: 256 KiB in flight (`SWITCHBOARD_AGENT_BYTES_IN_FLIGHT` overrides).
 * A chunk larger than the whole budget is still admitted when nothing else is
 * in flight, so no reply can be starved.
 */

/** The bytes handled at once across every sub-agent body being read. */
export interface ByteBudget {
  /** Resolves once `bytes` may be handled (FIFO among waiters). */
  take(bytes: number): Promise<void>;
  /** Gives back what `take` granted. */
  release(bytes: number): void;
  /**
   * Counts bytes that are already here (a reply body's chunk as undici hands
   * it over), past the limit if need be; given back with `release`. The
   * caller stops reading while `inFlight` is at the limit (`whenRoom`).
   */
  charge(bytes: number): void;
  /** Resolves once the budget is below its limit (FIFO with `take`). */
  whenRoom(): Promise<void>;
  /** Bytes granted and not yet given back. */
  readonly inFlight: number;
  /** Readers waiting for their share. */
  readonly waiting: number;
  readonly limit: number;
}

/** The default process-wide figure: 256 KiB of sub-agent bytes in flight. */
export const DEFAULT_AGENT_BYTES_IN_FLIGHT = 256 * 1024;

/** A budget of `limit` bytes in flight. */
export function createByteBudget(limit: number = DEFAULT_AGENT_BYTES_IN_FLIGHT): ByteBudget {
  let inFlight = 0;
  const queue: { bytes: number; grant: () => void }[] = [];
  const fits = (bytes: number) => inFlight === 0 || inFlight + bytes <= limit;
  const drain = () => {
    while (queue.length > 0 && fits(queue[0]!.bytes)) {
      const next = queue.shift()!;
      inFlight += next.bytes;
      next.grant();
    }
  };
  return {
    take(bytes) {
      if (queue.length === 0 && fits(bytes)) {
        inFlight += bytes;
        return Promise.resolve();
      }
      return new Promise<void>((grant) => queue.push({ bytes, grant }));
    },
    release(bytes) {
      inFlight = Math.max(0, inFlight - bytes);
      drain();
    },
    charge(bytes) {
      inFlight += bytes;
    },
    whenRoom() {
      // One byte's room, given back at once: resolves when something fits.
      return this.take(1).then(() => this.release(1));
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queue.length;
    },
    limit,
  };
}

function limitFromEnvironment(): number {
  const configured = Number(process.env.SWITCHBOARD_AGENT_BYTES_IN_FLIGHT);
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_AGENT_BYTES_IN_FLIGHT;
}

/** The process's budget, shared by every sub-agent body reader. */
export const agentByteBudget: ByteBudget = createByteBudget(limitFromEnvironment());

/**
 * Runs `handle` on a chunk of `bytes` within the budget. The bytes stay in
 * flight until the event loop has had a turn after the chunk was handled
 * (handling is synchronous, so counting only the handling would bound
 * nothing): between two turns of the loop at most the budget's worth of
 * sub-agent bytes is handled, and `/healthz` and other requests get their
 * turn in between.
 */
export async function withinByteBudget<T>(budget: ByteBudget, bytes: number, handle: () => T): Promise<T> {
  await budget.take(bytes);
  try {
    return handle();
  } finally {
    await new Promise<void>((resolve) => setImmediate(resolve));
    budget.release(bytes);
  }
}
