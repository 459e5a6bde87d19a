/**
 * Leases, key-value entries and the signal bus on Redis (`REDIS_URL`), for
 * Postgres storage: the fast shared state moves off the database. Every key
 * carries a prefix (default `switchboard:`) so several deployments or test
 * runs can share one Redis.
 *
 * Losing Redis degrades, never corrupts: commands fail fast while it is away
 * (no offline queue), so a new turn cannot take its lease and is answered 503
 * with `retry-after`, a cache read is a miss, and a signal is lost (the bus
 * contract allows it). Nothing durable lives here; the transcript and memory
 * stay in Postgres.
 */
import { createRedisRateLimiterFactory, type RateLimiterFactory } from '../rate-limiter.js';
import { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import { safeJsonParse } from '../../util/index.js';
import { createLocalSignalBus } from '../local-signal-bus.js';
import type { KeyValue, KeyValueStore, LeaseStore, SignalBus } from '../types.js';

/** Extends the lease only while `holder` still holds it. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
/** Deletes the lease only while `holder` still holds it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
/** Takes a free lease, or re-takes (renews) our own. */
const ACQUIRE = `local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
return 0`;

export interface RedisSharedState {
  leases: LeaseStore;
  kv: KeyValueStore;
  signals: SignalBus;
  createRateLimiter: RateLimiterFactory;
  close(): Promise<void>;
}

function connectOptions() {
  return { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 } as const;
}

/** Connects (failing when Redis is not reachable at start) and returns the shared state. */
export async function openRedisSharedState(options: { url: string; prefix?: string; logger: Logger }): Promise<RedisSharedState> {
  const prefix = options.prefix ?? 'switchboard:';
  const command = new Redis(options.url, connectOptions());
  const subscriber = new Redis(options.url, { ...connectOptions(), enableOfflineQueue: true });
  let warned = false;
  let lastError: Error | undefined;
  for (const connection of [command, subscriber]) {
    connection.on('error', (error: Error) => {
      lastError = error;
      if (!warned) options.logger.warn({ err: error }, 'redis unreachable; new turns are refused until it is back');
      warned = true;
    });
    connection.on('ready', () => {
      if (warned) options.logger.info('redis reachable again');
      warned = false;
    });
  }
  try {
    await command.connect();
    await subscriber.connect();
  } catch (error) {
    command.disconnect();
    subscriber.disconnect();
    // The client's own error is only "Connection is closed."; the socket's says why (refused, no such host).
    throw new Error(`REDIS_URL: cannot connect (${(lastError ?? (error as Error)).message})`, { cause: error });
  }

  const signalChannel = `${prefix}signals`;
  const local = createLocalSignalBus({ onHandlerError: (error) => options.logger.warn({ err: error }, 'signal handler failed') });
  subscriber.on('message', (channel: string, payload: string) => {
    if (channel !== signalChannel) return;
    const parsed = safeJsonParse(payload);
    if (!parsed.ok) return;
    const { c, m } = parsed.value as { c?: unknown; m?: unknown };
    if (typeof c === 'string' && typeof m === 'string') local.deliver(c, m);
  });
  await subscriber.subscribe(signalChannel);

  const leaseKey = (key: string) => `${prefix}lease:${key}`;
  const kvKey = (key: string) => `${prefix}kv:${key}`;
  const ttl = (ttlMs: number) => Math.max(1, Math.round(ttlMs));

  return {
    createRateLimiter: createRedisRateLimiterFactory(command, prefix),
    leases: {
      async acquire(key, holder, ttlMs) {
        return (await command.eval(ACQUIRE, 1, leaseKey(key), holder, ttl(ttlMs))) === 1;
      },
      async renew(key, holder, ttlMs) {
        return (await command.eval(RENEW, 1, leaseKey(key), holder, ttl(ttlMs))) === 1;
      },
      async release(key, holder) {
        await command.eval(RELEASE, 1, leaseKey(key), holder);
      },
      async holder(key) {
        return (await command.get(leaseKey(key))) ?? undefined;
      },
    },
    kv: {
      async get(key) {
        const text = await command.get(kvKey(key));
        if (text === null) return undefined;
        const parsed = safeJsonParse(text);
        return parsed.ok ? (parsed.value as KeyValue) : undefined;
      },
      async set(key, value, ttlMs) {
        await command.set(kvKey(key), JSON.stringify(value), 'PX', ttl(ttlMs));
      },
      async setIfAbsent(key, value, ttlMs) {
        return (await command.set(kvKey(key), JSON.stringify(value), 'PX', ttl(ttlMs), 'NX')) === 'OK';
      },
      async delete(key) {
        await command.del(kvKey(key));
      },
    },
    signals: {
      async publish(channel, message) {
        await command.publish(signalChannel, JSON.stringify({ c: channel, m: message }));
      },
      subscribe: (channel, handler) => local.subscribe(channel, handler),
    },
    async close() {
      await Promise.allSettled([command.quit(), subscriber.quit()]);
    },
  };
}
