/**
 * Server-sent events over an express response. Nagle is off, and proxies
 * are told not to buffer (`x-accel-buffering: no`). The events of one loop
 * turn go out in one socket write (a turn's start produces several at once),
 * the headers with the first of them: with `flush()` at once, else at the end
 * of the loop turn that opened the stream, events or not. An event that comes
 * within `COALESCE_MS` of the stream's last write waits for the rest of that
 * window, so a turn's steps that follow each other closely (the plan after
 * the intents, an agent's start after the plan) share a write: each write is
 * a system call, and on loopback the receiving side's work too. The end of a
 * stream (`done`) is never held: `end()` writes at once. A comment line
 * every `heartbeatMs` keeps idle connections from being cut by proxies (one
 * timer for all the streams of a period).
 */
import type { Response } from 'express';

/** One open event stream. */
export interface SseStream {
  /**
   * Writes `id: <id>\ndata: <json>\n\n` (docs/api.md#events; the id is
   * `<turn_id>:<seq>`, what a reconnecting client sends back as
   * `Last-Event-ID`), or only the data line without an id. No-op once the
   * stream is closed.
   */
  send(data: unknown, id?: string): void;
  /** Writes an already serialised event (a replay of what was stored) the same way. */
  sendSerialised(json: string, id?: string): void;
  /** Writes what is waiting now (the headers too, if not sent yet) instead of at the end of this loop turn. */
  flush(): void;
  /** Stops the heartbeat and ends the response. Safe to call more than once. */
  end(): void;
  /** True once ended here or closed by the client. */
  readonly closed: boolean;
}

/** How long after a write the next event of the stream may wait to share the next write (decision 0060). */
export const COALESCE_MS = 5;

/**
 * One timer per heartbeat period for every open stream, not one per stream: a ping goes to each stream on
 * the period's tick (the first between 0 and `heartbeatMs` after it opened), and a turn's stream costs no
 * timer of its own to start and stop.
 */
const heartbeats = new Map<number, { pings: Set<() => void>; timer: NodeJS.Timeout }>();

function joinHeartbeat(periodMs: number, ping: () => void): () => void {
  let beat = heartbeats.get(periodMs);
  if (!beat) {
    const pings = new Set<() => void>();
    const timer = setInterval(() => {
      for (const each of pings) each();
    }, periodMs);
    timer.unref();
    heartbeats.set(periodMs, (beat = { pings, timer }));
  }
  const joined = beat;
  joined.pings.add(ping);
  return () => {
    if (!joined.pings.delete(ping) || joined.pings.size > 0) return;
    clearInterval(joined.timer);
    if (heartbeats.get(periodMs) === joined) heartbeats.delete(periodMs);
  };
}

/** Sends the SSE headers and returns a writer for the stream. */
export function openSseStream(response: Response, options: { heartbeatMs: number; coalesceMs?: number }): SseStream {
  const coalesceMs = options.coalesceMs ?? COALESCE_MS;
  response.status(200);
  response.setHeader('content-type', 'text/event-stream; charset=utf-8');
  response.setHeader('cache-control', 'no-cache, no-transform');
  response.setHeader('connection', 'keep-alive');
  response.setHeader('x-accel-buffering', 'no');
  response.socket?.setNoDelay(true);

  let ended = false;
  const isClosed = () => ended || response.writableEnded || response.destroyed;
  // Frames waiting for the next write (the headers go with the first). The write comes at the end of the loop turn,
  // or at the end of the window that the stream's last write opened.
  let pending = '';
  let scheduled: { immediate: NodeJS.Immediate } | { timer: NodeJS.Timeout } | undefined;
  let lastWriteAt = -Infinity;
  const flush = () => {
    if (scheduled !== undefined) {
      if ('timer' in scheduled) clearTimeout(scheduled.timer);
      else clearImmediate(scheduled.immediate);
      scheduled = undefined;
    }
    if (response.writableEnded || response.destroyed) return;
    if (pending === '') {
      if (!response.headersSent) response.flushHeaders();
      return;
    }
    const chunk = pending;
    pending = '';
    lastWriteAt = performance.now();
    response.write(chunk);
  };
  const schedule = () => {
    if (scheduled !== undefined) return;
    const wait = lastWriteAt + coalesceMs - performance.now();
    scheduled = wait > 0 ? { timer: setTimeout(flush, wait) } : { immediate: setImmediate(flush) };
  };
  const write = (chunk: string) => {
    if (isClosed()) return;
    pending += chunk;
    schedule();
  };
  schedule();
  const stopHeartbeat = options.heartbeatMs > 0 ? joinHeartbeat(options.heartbeatMs, () => write(': ping\n\n')) : () => {};
  response.once('close', stopHeartbeat);

  return {
    send(data, id) {
      write(`${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    },
    sendSerialised(json, id) {
      write(`${id ? `id: ${id}\n` : ''}data: ${json}\n\n`);
    },
    flush,
    end() {
      stopHeartbeat();
      if (ended) return;
      flush();
      ended = true;
      if (!response.writableEnded && !response.destroyed) response.end();
    },
    get closed() {
      return isClosed();
    },
  };
}
