/**
 * The turn-history part of the storage contract (run by storage-contract.ts
 * on every backend): finished turns read back newest first in pages, with
 * their user row and events, filtered by start time and tenant; the next
 * turn of a session.
 */
import { describe, expect, it } from 'vitest';
import { ownerKey, type Storage } from '../../src/store/index.js';
import type { StorageFactory } from './storage-contract.js';

async function turn(storage: Storage, id: string, owner: string, session: string, query: string, at: string, finished = true): Promise<void> {
  await storage.transcript.beginTurn({ turnId: id, userId: owner, sessionId: session, query, traceId: `trace-${id}`, createdAt: at, metadata: { choose: id === 'h3' ? 'opt_1' : undefined } });
  await storage.events.appendEvents(id, [{ seq: 1, data: `{"stage":"intent_start","n":"${id}"}` }]);
  if (finished) await storage.transcript.finishTurn(id, { content: `answer ${id}`, outcome: 'completed', createdAt: at, events: [{ seq: 2, data: '{"stage":"done"}' }] });
}

/** Registers the turn-history cases for one backend. */
export function runTurnHistoryContract(factory: StorageFactory): void {
  describe('turn history', () => {
    it('reads finished turns newest first in pages, with their user row and events, by time and tenant', async () => {
      const storage = await factory.create();
      try {
        await turn(storage, 'h1', 'u1', 's1', '北京天气', '2026-01-01T10:00:00.000Z');
        await turn(storage, 'h2', 'u2', 's2', 'hotel please', '2026-01-02T10:00:00.000Z');
        await turn(storage, 'h3', 'u1', 's1', '第二个', '2026-01-03T10:00:00.000Z');
        await turn(storage, 'h4', ownerKey('acme', 'u1'), 's1', 'acme turn', '2026-01-04T10:00:00.000Z');
        await turn(storage, 'h5', 'u3', 's3', 'still running', '2026-01-05T10:00:00.000Z', false);

        const first = await storage.history.page({ limit: 2 });
        expect(first.map((row) => row.turn_id)).toEqual(['h4', 'h3']);
        expect(first[1]).toMatchObject({ query: '第二个', user_id: 'u1', session_id: 's1', status: 'completed', trace_id: 'trace-h3' });
        expect(first[1]!.query_metadata).toMatchObject({ trace_id: 'trace-h3', choose: 'opt_1' });
        expect(first[0]!.events).toBeUndefined();
        const last = first.at(-1)!;
        const second = await storage.history.page({ limit: 2, before: { started_at: last.started_at, turn_id: last.turn_id }, withEvents: true });
        expect(second.map((row) => row.turn_id)).toEqual(['h2', 'h1']);
        expect(second[1]!.events).toEqual([
          { seq: 1, data: '{"stage":"intent_start","n":"h1"}' },
          { seq: 2, data: '{"stage":"done"}' },
        ]);
        expect(await storage.history.page({ limit: 2, before: { started_at: second[1]!.started_at, turn_id: 'h1' } })).toEqual([]);

        expect((await storage.history.page({ limit: 10, since: '2026-01-02T00:00:00.000Z' })).map((row) => row.turn_id)).toEqual(['h4', 'h3', 'h2']);
        expect((await storage.history.page({ limit: 10, tenant: '' })).map((row) => row.turn_id)).toEqual(['h3', 'h2', 'h1']);
        expect((await storage.history.page({ limit: 10, tenant: 'acme' })).map((row) => row.user_id)).toEqual(['acme/u1']);
        expect(await storage.history.page({ limit: 10, tenant: 'other' })).toEqual([]);

        const next = await storage.history.nextInSession('h1');
        expect(next).toMatchObject({ turn_id: 'h3', query: '第二个' });
        expect(next!.events).toHaveLength(2);
        expect(await storage.history.nextInSession('h3')).toBeUndefined();
        expect(await storage.history.nextInSession('unknown')).toBeUndefined();
        const events = await storage.history.eventsOf(['h2', 'unknown']);
        expect([...events.entries()]).toEqual([
          ['h2', [{ seq: 1, data: '{"stage":"intent_start","n":"h2"}' }, { seq: 2, data: '{"stage":"done"}' }]],
          ['unknown', []],
        ]);
        expect((await storage.history.eventsOf([])).size).toBe(0);
      } finally {
        await storage.close();
      }
    });
  });
}
