import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type Storage, type StoredEvent } from '../store/index.js';
import { createTurnFeed } from './turn-feed.js';

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

const TURN = `turn_${'a'.repeat(32)}`;

function event(seq: number, type: 'content' | 'done' = 'content'): StoredEvent {
  return { seq, data: JSON.stringify({ type, content: `event ${seq}`, metadata: { stage: type === 'done' ? 'done' : 'agent_stream', seq } }) };
}

async function turnWithEvents(count: number): Promise<Storage> {
  const store = openSqliteStorage(':memory:');
  await store.transcript.beginTurn({ turnId: TURN, userId: 'u1', sessionId: 's1', query: 'q', traceId: 't', createdAt: new Date().toISOString() });
  await store.events.appendEvents(TURN, Array.from({ length: count }, (_, index) => event(index + 1)));
  return store;
}

/** Follows the turn and reports what arrived and how long the follow lasted. */
async function follow(feed: ReturnType<typeof createTurnFeed>, afterSeq = 0) {
  const seen: number[] = [];
  const started = Date.now();
  await feed.follow(TURN, afterSeq, (stored) => seen.push(stored.seq), new AbortController().signal);
  return { seen, ms: Date.now() - started };
}

describe('turn feed: how long a resumed stream may last', () => {
  it('ends at the done event', async () => {
    storage = await turnWithEvents(2);
    await storage.events.appendEvents(TURN, [event(3, 'done')]);
    const { seen, ms } = await follow(createTurnFeed({ storage, announced: true, settleMs: 5000, idleMs: 5000 }), 1);
    expect(seen).toEqual([2, 3]);
    expect(ms).toBeLessThan(1000);
  });

  it('gives up on a turn still marked running that stays silent, after the idle limit', async () => {
    storage = await turnWithEvents(2);
    const { seen, ms } = await follow(createTurnFeed({ storage, announced: false, settleMs: 100, idleMs: 600 }));
    expect(seen).toEqual([1, 2]);
    expect(ms).toBeGreaterThanOrEqual(600);
    expect(ms).toBeLessThan(2500);
  });

  it('gives up sooner on a turn that ended without a done event, after the settle limit', async () => {
    storage = await turnWithEvents(1);
    await storage.transcript.finishTurn(TURN, { content: '', outcome: 'error', createdAt: new Date().toISOString() });
    const { seen, ms } = await follow(createTurnFeed({ storage, announced: false, settleMs: 300, idleMs: 60_000 }));
    expect(seen).toEqual([1]);
    expect(ms).toBeGreaterThanOrEqual(300);
    expect(ms).toBeLessThan(2000);
  });
});
