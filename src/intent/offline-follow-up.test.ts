import { describe, expect, it } from 'vitest';
import { createOfflineRecognizer } from './offline-recognizer.js';
import { snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { MemoryTurn } from './types.js';
import { readQuery } from '../text/index.js';

const TODAY = new Date('2026-06-01T08:00:00Z');
const recognizer = createOfflineRecognizer({ now: () => TODAY });
const snapshot = snapshotOf(travelCards());
const hotelTurn: MemoryTurn = { query: '帮我订上海明天的酒店', rewrittenQuery: '帮我订上海明天的酒店', answer: '已为您找到酒店', agents: ['hotel_agent'] };

function recognize(query: string, history: MemoryTurn[]) {
  return recognizer.recognize({ ...readQuery(query), history, snapshot, pendingAgents: [] });
}

describe('offline follow-ups', () => {
  it('a short question naming no service goes on with the previous turn\'s agents', async () => {
    const result = await recognize('地址呢？', [hotelTurn]);
    expect(result.kind).toBe('business');
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['hotel_agent']);
    expect(result.rewrittenQuery).toBe('帮我订上海明天的酒店，地址呢？');
  });

  it('without a previous turn the same question is out of scope', async () => {
    expect((await recognize('地址呢？', [])).simpleKind).toBe('out_of_scope');
  });

  it('"那边天气怎么样" routes to weather and reads the place from the previous turn', async () => {
    const result = await recognize('那边天气怎么样', [hotelTurn]);
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['weather_agent']);
    expect(result.rewrittenQuery).toBe('帮我订上海明天的酒店，那边天气怎么样');
  });

  it('small talk after a turn is still small talk', async () => {
    expect((await recognize('谢谢', [hotelTurn])).simpleKind).toBe('thanks');
  });
});
