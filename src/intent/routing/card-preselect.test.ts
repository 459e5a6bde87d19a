import { describe, expect, it } from 'vitest';
import { createCardPreselector } from './card-preselect.js';
import { card, snapshotOf, travelCards } from '../../../test/support/registry-fixtures.js';
import { readTurnQuery } from '../../understanding/index.js';

function bigSnapshot(extra: number) {
  const fillers = Array.from({ length: extra }, (_, index) =>
    card({ id: `filler_${index}`, name: `充值服务${index}`, description: `第${index}类话费充值`, keywords: [`充值${index}号`] }),
  );
  return snapshotOf([...fillers, ...travelCards()]);
}

describe('card pre-selection', () => {
  it('shows every enabled card up to the limit', () => {
    const snapshot = snapshotOf(travelCards());
    const selection = createCardPreselector({ limit: 12 }).select({ query: readTurnQuery('你好'), history: [], pendingAgents: [], snapshot });
    expect(selection.preselected).toBe(false);
    expect(selection.cards.map((entry) => entry.id)).toEqual(snapshot.enabledAgents.map((entry) => entry.id));
  });

  it('above the limit keeps ranked, pending and previous-turn cards plus their depends_on closure, in registry order', () => {
    const snapshot = bigSnapshot(60);
    const preselector = createCardPreselector({ limit: 4 });
    const ranked = preselector.select({ query: readTurnQuery('安排明天早上7点首都机场接机'), history: [], pendingAgents: [], snapshot });
    expect(ranked.preselected).toBe(true);
    expect(ranked.cards.map((entry) => entry.id)).toEqual(expect.arrayContaining(['limo_agent', 'hotel_agent']));
    expect(ranked.cards.length).toBeLessThanOrEqual(8);

    const followUp = preselector.select({
      query: readTurnQuery('上海呢'),
      history: [{ query: '北京明天天气怎么样', rewrittenQuery: '北京明天天气怎么样', answer: '晴', agents: ['weather_agent'] }],
      pendingAgents: ['flight_agent'],
      snapshot,
    });
    // Pending and previous-turn cards come first; the rest of the limit goes to the query's candidates.
    expect(followUp.cards.map((entry) => entry.id)).toEqual(expect.arrayContaining(['flight_agent', 'weather_agent']));
    expect(followUp.cards.length).toBeLessThanOrEqual(4);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => createCardPreselector({ limit: 0 })).toThrow(/limit/);
  });
});
