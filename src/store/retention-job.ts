/**
 * Deletes what is older than `supervisor.retention_days` (transcripts, turn
 * events, task records): once shortly after start, then every hour. The
 * setting is read at each run, so a registry edit takes effect without a
 * restart. Replicas may all run it; the deletes are idempotent.
 */
import type { Logger } from '../logger.js';
import type { Storage } from './types.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionJob {
  /** Runs one pass now (also what the timer does). */
  runOnce(): Promise<void>;
  stop(): void;
}

export function startRetentionJob(options: {
  storage: Pick<Storage, 'deleteOlderThan'>;
  retentionDays: () => number;
  logger: Logger;
  now?: () => Date;
  firstRunMs?: number;
  everyMs?: number;
}): RetentionJob {
  const now = options.now ?? (() => new Date());
  let running: Promise<void> | undefined;
  const runOnce = () =>
    (running ??= (async () => {
      const cutoff = new Date(now().getTime() - options.retentionDays() * DAY_MS);
      try {
        const removed = await options.storage.deleteOlderThan(cutoff);
        if (removed.turns + removed.messages + removed.a2aTasks > 0) options.logger.info({ cutoff: cutoff.toISOString(), ...removed }, 'retention: old turns deleted');
      } catch (error) {
        options.logger.warn({ err: error }, 'retention pass failed; retrying at the next one');
      }
    })().finally(() => (running = undefined)));
  const first = setTimeout(() => void runOnce(), options.firstRunMs ?? 60_000);
  const timer = setInterval(() => void runOnce(), options.everyMs ?? 60 * 60 * 1000);
  first.unref();
  timer.unref();
  return {
    runOnce,
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
