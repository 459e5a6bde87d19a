/**
 * Starts an app on a port and stops it cleanly: stop accepting, end every open
 * chat stream (its turn is aborted and gets a short grace to send `done`),
 * wait for them, then close the remaining connections.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { streamTrackerOf } from './stream-tracker.js';

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

/** Listens on `host:port` (port 0 picks a free one). */
export async function startServer(app: Express, options: { port: number; host?: string }): Promise<RunningServer> {
  const host = options.host ?? '0.0.0.0';
  const server = createServer(app);
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
        await streamTrackerOf(app)?.shutdownAll();
        server.closeIdleConnections();
        const forced = setTimeout(() => server.closeAllConnections(), 1000);
        forced.unref();
        await stopped;
        clearTimeout(forced);
      })();
      return closing;
    },
  };
}
