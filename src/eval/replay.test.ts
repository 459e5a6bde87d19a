import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type Storage } from '../store/index.js';
import { describeRouting, isRoutableMessage, replayTurns, type Router, type Routing } from './replay.js';

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

const routing = (kind: Routing['kind'], ...agents: string[]): Routing => ({ kind, agents });

describe('replayTurns', () => {
  it('pages through the newest turns, counts moves per agent, marks changed turns and skips body-only messages', async () => {
    const store = (storage = openSqliteStorage(':memory:'));
    const messages = ['umbrella?', 'cheap inn', 'hotel please', 'confirm: task_1', 'cheap inn', 'weather', 'old turn'];
    for (const [index, query] of messages.entries()) {
      const at = new Date(Date.parse('2026-11-20T10:00:00.000Z') + index * 1000).toISOString();
      const turnId = `turn_${index}`;
      await store.transcript.beginTurn({ turnId, userId: 'u1', sessionId: `s${index}`, query, traceId: 't', createdAt: at });
      const events = query === 'umbrella?' ? [{ seq: 1, data: JSON.stringify({ metadata: { stage: 'escalate' } }) }] : [];
      await store.transcript.finishTurn(turnId, { content: '', outcome: 'completed', createdAt: at, events });
    }
    const calls: string[] = [];
    const base: Router = async (query) => {
      calls.push(query);
      return query === 'cheap inn' || query === 'hotel please' ? routing('agents', 'hotel_agent') : query === 'weather' ? routing('agents', 'weather_agent') : routing('none');
    };
    const next: Router = async (query) =>
      query === 'cheap inn' ? routing('agents', 'flight_agent') : query === 'umbrella?' ? routing('clarify', 'limo_agent', 'weather_agent') : base(query);
    // The newest six turns, two per page: "umbrella?" (the oldest) is left out by the limit.
    const result = await replayTurns({ history: store.history, base, next, limit: 6, pageSize: 2 });
    expect(result.pages).toBe(3);
    expect(result.skipped).toBe(1);
    expect(result.turns).toBe(5);
    expect(result.changes.map((change) => [change.query, describeRouting(change.before), describeRouting(change.after)])).toEqual([
      ['cheap inn', '[hotel_agent]', '[flight_agent]'],
      ['cheap inn', '[hotel_agent]', '[flight_agent]'],
    ]);
    expect(result.agents).toEqual([
      { agent: 'flight_agent', gained: 2, lost: 0 },
      { agent: 'hotel_agent', gained: 0, lost: 2 },
    ]);
    expect(result.shareUnchanged).toBeCloseTo(3 / 5);

    const all = await replayTurns({ history: store.history, base, next, since: '2026-11-20T10:00:00.000Z' });
    const umbrella = all.changes.find((change) => change.query === 'umbrella?')!;
    expect(describeRouting(umbrella.after)).toBe('clarify(limo_agent | weather_agent)');
    expect(umbrella.marks).toEqual(['escalated']);
    expect(all.markedChanges).toEqual({ escalated: 1 });
    expect(all.moves[0]).toEqual({ before: '[hotel_agent]', after: '[flight_agent]', count: 2 });
    expect(calls).not.toContain('confirm: task_1');
  });

  it('finds nothing to change in an empty store', async () => {
    const store = (storage = openSqliteStorage(':memory:'));
    const same: Router = async () => routing('none');
    expect(await replayTurns({ history: store.history, base: same, next: same })).toMatchObject({ turns: 0, shareUnchanged: 1, changes: [], pages: 0 });
  });
});

describe('isRoutableMessage', () => {
  it('tells body-only stand-ins from messages', () => {
    expect(isRoutableMessage('confirm: task_1, task_2; reject: task_3')).toBe(false);
    expect(isRoutableMessage('choose: opt_1')).toBe(false);
    expect(isRoutableMessage('   ')).toBe(false);
    expect(isRoutableMessage('confirm: the hotel, and book a flight too')).toBe(true);
    expect(isRoutableMessage('please confirm: the hotel')).toBe(true);
  });
});
