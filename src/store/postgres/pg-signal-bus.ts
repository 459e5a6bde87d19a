/**
 * The signal bus over Postgres `LISTEN/NOTIFY` (used when there is no Redis):
 * one dedicated connection listens on one database channel, messages carry
 * their logical channel, and the local bus fans them out. The listener
 * reconnects with backoff; messages sent while it is down are lost, which the
 * bus contract allows (subscribers re-check stored state).
 */
import pg from 'pg';
import type { Logger } from '../../logger.js';
import { safeJsonParse } from '../../util/index.js';
import { createLocalSignalBus } from '../local-signal-bus.js';
import type { SignalBus } from '../types.js';

const DATABASE_CHANNEL = 'sb_signals';

export interface PostgresSignalBus extends SignalBus {
  close(): Promise<void>;
}

export async function createPostgresSignalBus(options: { pool: pg.Pool; connectionString: string; logger: Logger }): Promise<PostgresSignalBus> {
  const local = createLocalSignalBus({ onHandlerError: (error) => options.logger.warn({ err: error }, 'signal handler failed') });
  let client: pg.Client | undefined;
  let closed = false;
  let retryMs = 100;

  const onNotification = (message: pg.Notification) => {
    if (message.channel !== DATABASE_CHANNEL || !message.payload) return;
    const parsed = safeJsonParse(message.payload);
    if (!parsed.ok) return;
    const { c, m } = parsed.value as { c?: unknown; m?: unknown };
    if (typeof c === 'string' && typeof m === 'string') local.deliver(c, m);
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.connectionString });
    next.on('notification', onNotification);
    next.on('error', (error) => {
      options.logger.warn({ err: error }, 'signal listener connection lost; reconnecting');
      reconnect(next);
    });
    await next.connect();
    await next.query(`LISTEN ${DATABASE_CHANNEL}`);
    client = next;
    retryMs = 100;
  };

  const reconnect = (broken: pg.Client) => {
    if (closed || client !== broken) return;
    client = undefined;
    broken.end().catch(() => {});
    const retry = () => {
      if (closed) return;
      connect().catch((error: unknown) => {
        options.logger.warn({ err: error, retryMs }, 'signal listener reconnect failed');
        retryMs = Math.min(retryMs * 2, 5000);
        setTimeout(retry, retryMs).unref();
      });
    };
    setTimeout(retry, retryMs).unref();
  };

  await connect();
  return {
    async publish(channel, message) {
      await options.pool.query('SELECT pg_notify($1, $2)', [DATABASE_CHANNEL, JSON.stringify({ c: channel, m: message })]);
    },
    subscribe: (channel, handler) => local.subscribe(channel, handler),
    async close() {
      closed = true;
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
