/**
 * The turn-record part of the storage contract (run by `storage-contract.ts`
 * on every backend): a record is written with the turn's finish, listed
 * newest first within one tenant with each filter and a cursor, never seen
 * from another tenant, and deleted with its turn by retention and by
 * forgetting its user.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerKey, type Storage, type StoredTurnRecord } from '../../src/store/index.js';

/** A record as the turn runner writes it (`src/turn/turn-record.ts`), with the given fields. */
export function sampleTurnRecord(fields: Partial<StoredTurnRecord> & Pick<StoredTurnRecord, 'turn_id' | 'session_id' | 'user_id'>): StoredTurnRecord {
  return {
    trace_id: 'trace-1',
    at: new Date().toISOString(),
    outcome: 'completed',
    duration_ms: 12,
    agents: ['weather_agent'],
    usage: { model_calls: 0, prompt_tokens: 0, completion_tokens: 0, agent_calls: 1, by_agent: { weather_agent: { calls: 1, failures: 0, ms: 7 } } },
    registry_version: 'v1',
    query: '北京天气',
    answer: '北京晴',
    stages: [{ stage: 'intent', start_ms: 0, end_ms: 2 }],
    timings_ms: { intent: 2 },
    calls: [],
    ...fields,
  };
}

/** Begins and finishes a turn with a record; returns the record as written. */
async function recordedTurn(storage: Storage, owner: string, sessionId: string, startedAt: string, fields: Partial<StoredTurnRecord> = {}): Promise<StoredTurnRecord> {
  const turnId = `turn_${randomUUID().replaceAll('-', '')}`;
  await storage.transcript.beginTurn({ turnId, userId: owner, sessionId, query: '北京天气', traceId: 'trace-1', createdAt: startedAt });
  const record = sampleTurnRecord({ turn_id: turnId, session_id: sessionId, user_id: owner, at: startedAt, ...fields });
  expect(await storage.transcript.finishTurn(turnId, { content: record.answer, outcome: 'completed', createdAt: new Date().toISOString(), record })).toBe(true);
  return record;
}

/** The turn-record tests on storages `withStorage` opens. */
export function describeTurnRecords(withStorage: (body: (storage: Storage) => Promise<void>) => Promise<void>): void {
  describe('turn records', () => {
    it('keeps a record with the turn\'s finish, reads it back within its tenant only, and lists newest first', async () => {
      await withStorage(async (storage) => {
        const tenant = `t${randomUUID().slice(0, 8)}`;
        const owner = ownerKey(tenant, 'u1');
        const first = await recordedTurn(storage, owner, 's1', '2030-01-01T00:00:01.000Z');
        const second = await recordedTurn(storage, owner, 's1', '2030-01-01T00:00:02.000Z', { outcome: 'partial', agents: ['hotel_agent', 'weather_agent'] });
        const unrecorded = `turn_${randomUUID().replaceAll('-', '')}`;
        await storage.transcript.beginTurn({ turnId: unrecorded, userId: owner, sessionId: 's1', query: 'x', traceId: 't', createdAt: '2030-01-01T00:00:03.000Z' });
        expect(await storage.transcript.getTurnRecord(tenant, first.turn_id)).toEqual(first);
        expect(await storage.transcript.getTurnRecord('other', first.turn_id)).toBeUndefined();
        expect(await storage.transcript.getTurnRecord('', first.turn_id)).toBeUndefined();
        expect(await storage.transcript.getTurnRecord(tenant, unrecorded)).toBeUndefined();
        const listed = await storage.transcript.listTurnRecords({ tenant, limit: 10 });
        expect(listed.map((record) => record.turn_id)).toEqual([second.turn_id, first.turn_id]);
        expect(await storage.transcript.listTurnRecords({ tenant: `${tenant}x`, limit: 10 })).toEqual([]);
        // A second finish writes nothing, so the record stays the first one.
        expect(await storage.transcript.finishTurn(first.turn_id, { content: 'again', outcome: 'completed', createdAt: new Date().toISOString(), record: { ...first, answer: 'again' } })).toBe(false);
        expect((await storage.transcript.getTurnRecord(tenant, first.turn_id))?.answer).toBe(first.answer);
        // Reads are copies.
        listed[0]!.agents.push('changed');
        expect((await storage.transcript.getTurnRecord(tenant, second.turn_id))?.agents).toEqual(['hotel_agent', 'weather_agent']);
      });
    });

    it('filters by outcome, agent (whole ids only), session and start, and pages with a cursor', async () => {
      await withStorage(async (storage) => {
        const tenant = `t${randomUUID().slice(0, 8)}`;
        const owner = ownerKey(tenant, 'u1');
        const a = await recordedTurn(storage, owner, 's1', '2030-02-01T00:00:01.000Z', { agents: ['a_b'] });
        const b = await recordedTurn(storage, owner, 's2', '2030-02-01T00:00:02.000Z', { agents: ['axb'], outcome: 'failed' });
        const c = await recordedTurn(storage, owner, 's1', '2030-02-01T00:00:02.000Z', { agents: ['a_b', 'c'] });
        const d = await recordedTurn(storage, owner, 's2', '2030-02-01T00:00:04.000Z', { agents: [] });
        const ids = (records: StoredTurnRecord[]) => records.map((record) => record.turn_id);
        const sameTime = [b, c].sort((x, y) => (x.turn_id < y.turn_id ? 1 : -1));
        expect(ids(await storage.transcript.listTurnRecords({ tenant, limit: 10 }))).toEqual(ids([d, ...sameTime, a]));
        expect(ids(await storage.transcript.listTurnRecords({ tenant, outcome: 'failed', limit: 10 }))).toEqual([b.turn_id]);
        expect(ids(await storage.transcript.listTurnRecords({ tenant, agent: 'a_b', limit: 10 }))).toEqual([c.turn_id, a.turn_id]);
        expect(ids(await storage.transcript.listTurnRecords({ tenant, agent: 'a', limit: 10 }))).toEqual([]);
        expect(ids(await storage.transcript.listTurnRecords({ tenant, sessionId: 's2', limit: 10 }))).toEqual([d.turn_id, b.turn_id]);
        expect(ids(await storage.transcript.listTurnRecords({ tenant, since: '2030-02-01T00:00:02.000Z', limit: 10 }))).toEqual(ids([d, ...sameTime]));
        // Paging: two at a time, each page after the last record of the one before.
        const pages: string[][] = [];
        let before: { at: string; turnId: string } | undefined;
        for (;;) {
          const page = await storage.transcript.listTurnRecords({ tenant, limit: 2, ...(before ? { before } : {}) });
          if (page.length === 0) break;
          pages.push(ids(page));
          before = { at: page.at(-1)!.at, turnId: page.at(-1)!.turn_id };
        }
        expect(pages).toEqual([ids([d, sameTime[0]!]), ids([sameTime[1]!, a])]);
      });
    });

    it('goes with its turn: retention and forgetting the user delete it', async () => {
      await withStorage(async (storage) => {
        const tenant = `t${randomUUID().slice(0, 8)}`;
        const old = await recordedTurn(storage, ownerKey(tenant, 'u1'), 'old', '2020-01-01T00:00:00.000Z');
        const forgotten = await recordedTurn(storage, ownerKey(tenant, 'u2'), 's1', new Date().toISOString());
        const kept = await recordedTurn(storage, ownerKey(tenant, 'u3'), 's1', new Date().toISOString());
        await storage.deleteOlderThan(new Date('2021-01-01T00:00:00.000Z'));
        expect(await storage.transcript.getTurnRecord(tenant, old.turn_id)).toBeUndefined();
        await storage.forgetUser(ownerKey(tenant, 'u2'));
        expect(await storage.transcript.getTurnRecord(tenant, forgotten.turn_id)).toBeUndefined();
        expect(ids(await storage.transcript.listTurnRecords({ tenant, limit: 10 }))).toEqual([kept.turn_id]);
      });
    });
  });
}

function ids(records: StoredTurnRecord[]): string[] {
  return records.map((record) => record.turn_id);
}
