import { expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { openSqliteStorage } from './index.js';
import { startRetentionJob } from './retention-job.js';

it('deletes turns older than the configured days and reads the setting at each pass', async () => {
  const storage = openSqliteStorage(':memory:');
  const begin = (turnId: string, createdAt: string) =>
    storage.transcript.beginTurn({ turnId, userId: 'u1', sessionId: turnId, query: 'q', traceId: 't', createdAt });
  await begin('old', '2026-01-01T00:00:00.000Z');
  await storage.transcript.finishTurn('old', { content: 'a', outcome: 'completed', createdAt: '2026-01-01T00:00:01.000Z' });
  await begin('mid', '2026-03-01T00:00:00.000Z');
  await storage.transcript.finishTurn('mid', { content: 'a', outcome: 'completed', createdAt: '2026-03-01T00:00:01.000Z' });
  let days = 90;
  const job = startRetentionJob({ storage, retentionDays: () => days, logger: silentLogger, now: () => new Date('2026-04-15T00:00:00.000Z') });
  await job.runOnce();
  expect(await storage.transcript.getTurn('old')).toBeUndefined();
  expect(await storage.transcript.getTurn('mid')).toBeDefined();
  days = 30;
  await job.runOnce();
  expect(await storage.transcript.getTurn('mid')).toBeUndefined();
  job.stop();
  await storage.close();
});
