/**
 * Reads a reply body that undici hands over as a Node stream so its bytes
 * count in the process's budget of sub-agent bytes in flight
 * (`byte-budget.ts`) from the moment they leave undici, not only while they
 * are handled: each chunk is charged as it arrives (flowing mode, so nothing
 * waits uncounted in the stream's own buffer), and the stream is paused while
 * the budget is at its limit (every body of the budget at once, so the
 * budget is passed by at most the chunk that filled it). A paused stream stops undici reading its socket
 * once the stream's buffer (`AGENT_BODY_HIGH_WATER_MARK`) is full, so TCP
 * slows the agent down; the stream resumes when the budget has room.
 *
 * The consumer releases each chunk's bytes once it has handled it; chunks
 * still queued when it stops (a cap reached, an error) are released here.
 */
import type { Readable } from 'node:stream';
import type { ByteBudget } from './byte-budget.js';

/** The buffer of one reply body's stream inside undici: past it undici stops reading the socket. */
export const AGENT_BODY_HIGH_WATER_MARK = 16 * 1024;

/** The bodies flowing under each budget: all are paused when it is at its limit, all resumed when it has room. */
const flowing = new WeakMap<ByteBudget, { streams: Set<Readable>; waitingForRoom: boolean }>();

function readersOf(budget: ByteBudget) {
  let readers = flowing.get(budget);
  if (!readers) {
    readers = { streams: new Set(), waitingForRoom: false };
    flowing.set(budget, readers);
  }
  return readers;
}

/** Pauses every body of the budget (each stops its socket once its small buffer is full) until the budget has room. */
function pauseAll(budget: ByteBudget): void {
  const readers = readersOf(budget);
  for (const stream of readers.streams) stream.pause();
  if (readers.waitingForRoom) return;
  readers.waitingForRoom = true;
  void budget.whenRoom().then(() => {
    readers.waitingForRoom = false;
    for (const stream of readers.streams) if (!stream.destroyed) stream.resume();
  });
}

/** The body's chunks, each already charged to `budget`; the consumer releases each one after handling it. */
export async function* budgetedChunks(stream: Readable, budget: ByteBudget): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const readers = readersOf(budget);
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const onData = (chunk: Uint8Array) => {
    budget.charge(chunk.byteLength);
    queue.push(chunk);
    if (budget.inFlight >= budget.limit) pauseAll(budget);
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  // Closed before its end (an abort, a cut connection): the read fails, as the stream's own iterator would.
  const onClose = () => {
    if (!ended && failure === undefined) failure = stream.errored ?? new Error('the reply body was cut before its end');
    ended = true;
    notify();
  };
  const onError = (error: unknown) => {
    failure = error;
    notify();
  };
  readers.streams.add(stream);
  stream.on('data', onData);
  if (readers.waitingForRoom) stream.pause();
  stream.once('end', onEnd);
  stream.once('close', onClose);
  stream.once('error', onError);
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    readers.streams.delete(stream);
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('close', onClose);
    stream.off('error', onError);
    const left = queue.splice(0).reduce((sum, chunk) => sum + chunk.byteLength, 0);
    if (left > 0) budget.release(left);
    // Leaving early drops the rest of the body (and its connection).
    if (!ended) stream.destroy();
  }
}
