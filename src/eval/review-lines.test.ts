import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStorage, type Storage } from '../store/index.js';
import { collectReview } from './review-lines.js';
import { readTurnFacts } from './turn-facts.js';

const event = (stage: string, fields: Record<string, unknown> = {}, agentId = 'supervisor') => JSON.stringify({ type: stage === 'done' ? 'done' : 'content', content: '', agent_id: agentId, is_thinking: true, metadata: { stage, ...fields } });
const OPTIONS = [
  { option_id: 'opt_1', sub_agent_id: 'hotel_agent', label: '酒店服务' },
  { option_id: 'opt_2', sub_agent_id: 'limo_agent', label: '接送机' },
];

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
  storage = undefined;
});

let clock = Date.parse('2026-11-20T10:00:00.000Z');
async function served(store: Storage, session: string, query: string, events: string[], metadata?: Record<string, unknown>): Promise<string> {
  const turnId = `turn_${(clock += 1000)}`;
  const at = new Date(clock).toISOString();
  await store.transcript.beginTurn({ turnId, userId: 'u1', sessionId: session, query, traceId: 't', createdAt: at, ...(metadata ? { metadata } : {}) });
  await store.transcript.finishTurn(turnId, { content: 'x', outcome: 'completed', createdAt: at, events: events.map((data, index) => ({ seq: index + 1, data })) });
  return turnId;
}

describe('readTurnFacts', () => {
  it('reads what was routed, the outcome and each mark from the stored events', () => {
    const facts = readTurnFacts(
      [
        event('intent_done', { state: { kind: 'business', intents: ['hotel_agent'], act: 'correction' } }),
        event('agent_start', {}, 'hotel_agent'),
        event('final', { clarification: { options: OPTIONS }, state: { delta: false } }),
        event('escalate'),
        event('done', { state: { outcome: 'escalated' } }),
        'not json',
      ].map((data, index) => ({ seq: index + 1, data })),
    );
    expect(facts).toEqual({ routed: ['hotel_agent'], kind: 'business', outcome: 'escalated', clarification: OPTIONS, marks: ['clarification', 'correction', 'escalated'] });
    const outOfScope = readTurnFacts([event('intent_done', { state: { kind: 'simple', intents: [] } }), event('final', { state: { kind: 'out_of_scope', delta: false } }), event('done', { state: { outcome: 'failed' } })].map((data, index) => ({ seq: index + 1, data })));
    expect(outOfScope.marks).toEqual(['out_of_scope', 'failed']);
    expect(readTurnFacts([]).marks).toEqual([]);
  });
});

describe('collectReview', () => {
  it('proposes the chosen option of a clarification as the label, merges repeated messages, and leaves out turns served well', async () => {
    const store = (storage = openSqliteStorage(':memory:'));
    const asked = [event('intent_done', { state: { kind: 'clarify', intents: [] } }), event('final', { clarification: { options: OPTIONS } }), event('done', { state: { outcome: 'input_required' } })];
    await served(store, 's1', '去机场附近住', asked);
    await served(store, 's1', 'choose: opt_2', []);
    // A second clarification answered in words: the offered agent the next turn routed to is the choice.
    await served(store, 's2', '机场那边', asked);
    await served(store, 's2', '第一个', [event('intent_done', { state: { kind: 'business', intents: ['hotel_agent'] } })]);
    // Asked and then dropped by a new request: no choice, so the label stays what was routed.
    await served(store, 's3', '机场那边', asked);
    await served(store, 's3', '讲个笑话', [event('final', { state: { kind: 'out_of_scope' } })]);
    await served(store, 's4', '北京天气', [event('intent_done', { state: { kind: 'business', intents: ['weather_agent'] } }), event('done', { state: { outcome: 'completed' } })]);

    const review = await collectReview({ history: store.history, since: '2026-11-01T00:00:00.000Z', pageSize: 2 });
    expect(review.read).toBe(7);
    const byQuery = Object.fromEntries(review.lines.map((line) => [line.query, line]));
    expect(Object.keys(byQuery).sort()).toEqual(['去机场附近住', '机场那边', '讲个笑话'].sort());
    expect(byQuery['去机场附近住']).toMatchObject({ agents: ['limo_agent'], review: { why: ['clarification'], routed: [], proposed: 'chosen', clarification: { options: OPTIONS, chosen: 'limo_agent' } } });
    // Newest first: s3's dropped clarification is read first, then s2's answered one gives the label.
    expect(byQuery['机场那边']).toMatchObject({ agents: ['hotel_agent'], review: { turns: 2, proposed: 'chosen', clarification: { chosen: 'hotel_agent' } } });
    expect(byQuery['讲个笑话']).toMatchObject({ agents: [], review: { why: ['out_of_scope'] } });
    expect(review.byMark).toEqual({ clarification: 3, out_of_scope: 1 });
  });
});
