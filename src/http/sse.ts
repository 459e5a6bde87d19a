/**
 * Server-sent events over an express response. Each event leaves the process
 * as soon as it is produced: headers are flushed up front, Nagle is off, and
 * proxies are told not to buffer (`x-accel-buffering: no`). A comment line
 * every `heartbeatMs` keeps idle connections from being cut by proxies.
 */
import type { Response } from 'express';

/** One open event stream. */
export interface SseStream {
  /**
   * Writes `data: <json>\n\n`, exactly the frame of CONTRACT §3 (the event's
   * position travels in `metadata.seq`). No-op once the stream is closed.
   */
  send(data: unknown): void;
  /** Stops the heartbeat and ends the response. Safe to call more than once. */
  end(): void;
  /** True once ended here or closed by the client. */
  readonly closed: boolean;
}

/** Sends the SSE headers and returns a writer for the stream. */
export function openSseStream(response: Response, options: { heartbeatMs: number }): SseStream {
  response.status(200);
  response.setHeader('content-type', 'text/event-stream; charset=utf-8');
  response.setHeader('cache-control', 'no-cache, no-transform');
  response.setHeader('connection', 'keep-alive');
  response.setHeader('x-accel-buffering', 'no');
  response.flushHeaders();
  response.socket?.setNoDelay(true);

  let ended = false;
  const isClosed = () => ended || response.writableEnded || response.destroyed;
  const write = (chunk: string) => {
    if (!isClosed()) response.write(chunk);
  };
  const heartbeat = options.heartbeatMs > 0 ? setInterval(() => write(': ping\n\n'), options.heartbeatMs) : undefined;
  heartbeat?.unref();
  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat);
  };
  response.once('close', stopHeartbeat);

  return {
    send(data) {
      write(`data: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      stopHeartbeat();
      if (ended) return;
      ended = true;
      if (!response.writableEnded && !response.destroyed) response.end();
    },
    get closed() {
      return isClosed();
    },
  };
}
