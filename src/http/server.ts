/**
 * Starts an app on a port and stops it cleanly: stop accepting, end every open
 * chat stream (its turn is aborted and gets a short grace to send `done`),
 * wait for them, then close the remaining connections.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { rawErrorResponse } from './error-handler.js';
import type { StreamTracker } from './stream-tracker.js';

/** Requests still running when shutdown starts get this long before their sockets are cut. */
const FORCE_CLOSE_AFTER_MS = 5000;

/**
 * How long an idle keep-alive connection is kept. Node's 5 s is shorter than
 * the idle timeout of common load balancers and client pools (60 s): the
 * balancer then sends a request on a connection this server is closing, and
 * its client sees a reset instead of an answer. Kept longer than theirs, the
 * close comes from their side. The headers timeout must stay above it.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Counts the requests in flight per socket. Node's own `closeIdleConnections`
 * skips sockets that never carried a request (clients open spare ones), which
 * would hold `close()` until the headers timeout; on shutdown every socket is
 * closed as soon as it carries no request.
 */
function trackConnections(server: Server) {
  const busy = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
  });
  return {
    closeWhenIdle() {
      closing = true;
      for (const [socket, count] of busy) if (count === 0) socket.destroy();
    },
  };
}

/**
 * Requests Node refuses before express sees them (headers or URL over the
 * parser's limit, a malformed request line, a request that timed out) get a
 * JSON error from the catalogue instead of Node's bare status line.
 */
function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const text =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? rawErrorResponse('HEADERS_TOO_LARGE', 'the request headers (or the URL) are too large')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? rawErrorResponse('REQUEST_TIMEOUT')
          : rawErrorResponse('BAD_REQUEST', 'the request is malformed');
    socket.end(text);
  });
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  port: number;
  /** The underlying node server (for tuning timeouts). */
  server: Server;
  /** Stops accepting, ends open streams, waits for them; safe to call twice. */
  close(): Promise<void>;
}

/** Where and how to listen. */
export interface StartServerOptions {
  port: number;
  host?: string;
  /** The app's open chat streams (`AppOptions.streams`), ended on close. */
  streams?: StreamTracker;
}

/** Listens on `host:port` (port 0 picks a free one). */
export async function startServer(app: Express, options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? '0.0.0.0';
  const server = createServer(app);
  // No `maxConnections`: past it Node destroys new sockets, a reset where a 503 OVERLOADED belongs (admission is per turn).
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
  answerClientErrorsWithJson(server);
  const connections = trackConnections(server);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const shownHost = unspecified ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;

  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    server,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await options.streams?.shutdownAll();
        connections.closeWhenIdle();
        const forced = setTimeout(() => server.closeAllConnections(), FORCE_CLOSE_AFTER_MS);
        forced.unref();
        await stopped;
        clearTimeout(forced);
      })();
      return closing;
    },
  };
}
