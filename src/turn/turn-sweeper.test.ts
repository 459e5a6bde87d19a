import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { openSqliteStorage, type Storage } from '../store/index.js';
import { sessionLeaseKey } from './session-lease.js';
import { startTurnSweeper, type TurnSweeper } from './turn-sweeper.js';

describe('the sweeper of turns whose process died', () => {
  let storage: Storage | undefined;
  let sweeper: TurnSweeper | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    sweeper?.stop();
    await storage?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('closes a running turn whose session lease is gone as interrupted, and leaves one whose lease is held', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sb-sweeper-'));
    storage = openSqliteStorage(join(dir, 'switchboard.db'));
    const started = new Date('2026-11-27T10:00:00.000Z');
    // Two turns written ahead by a process that was then killed; only the second session's lease is still held (a live turn).
    await storage.transcript.beginTurn({ turnId: 'turn_dead', userId: 'u1', sessionId: 's-dead', query: 'q', traceId: 't1', createdAt: started.toISOString() });
    await storage.transcript.beginTurn({ turnId: 'turn_live', userId: 'u1', sessionId: 's-live', query: 'q', traceId: 't2', createdAt: started.toISOString() });
    expect(await storage.leases.acquire(sessionLeaseKey('u1', 's-live'), 'replica-a:turn_live', 60_000)).toBe(true);
    let clock = new Date(started.getTime() + 5_000);
    sweeper = startTurnSweeper({ storage, logger: silentLogger, leaseTtlMs: 15_000, now: () => clock });
    // Younger than the lease TTL: not judged yet.
    expect(await sweeper.runOnce()).toEqual([]);
    clock = new Date(started.getTime() + 20_000);
    expect(await sweeper.runOnce()).toEqual(['turn_dead']);
    expect((await storage.transcript.getTurn('turn_dead'))?.status).toBe('interrupted');
    expect((await storage.transcript.getTurn('turn_live'))?.status).toBe('running');
    const rows = await storage.transcript.listMessages('u1', 's-dead');
    expect(rows.map((row) => [row.role, row.metadata?.outcome])).toEqual([['user', undefined], ['assistant', 'interrupted']]);
    // Idempotent: a second pass (another replica) closes nothing more.
    expect(await sweeper.runOnce()).toEqual([]);
  });
});
