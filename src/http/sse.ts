/**
 * Server-sent events over an express response. Each event leaves the process
 * in the turn of the event loop that produced it: Nagle is off, and proxies
 * are told not to buffer (`x-accel-buffering: no`). The events of one loop
 * turn go out in one socket write (a turn's start produces several at once),
 * the headers with the first of them: with `flush()` at once, else at the end
 * of the loop turn that opened the stream, events or not. A comment line
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
export function openSseStream(response: Response, options: { heartbeatMs: number }): SseStream {
  response.status(200);
  response.setHeader('content-type', 'text/event-stream; charset=utf-8');
  response.setHeader('cache-control', 'no-cache, no-transform');
  response.setHeader('connection', 'keep-alive');
  response.setHeader('x-accel-buffering', 'no');
  response.socket?.setNoDelay(true);

  let ended = false;
  const isClosed = () => ended || response.writableEnded || response.destroyed;
  // Frames written in one loop turn, sent together when the turn's I/O is done (the headers with the first).
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (response.writableEnded || response.destroyed) return;
    if (pending === '') {
      if (!response.headersSent) response.flushHeaders();
      return;
    }
    const chunk = pending;
    pending = '';
    response.write(chunk);
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
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
