/**
 * Parts of a several-request message that no agent took (decision 0058): asked about when the shortlist
 * would ask about them alone and their nearest card was not routed, said to be not handled when they start
 * a request of their own after the first, left alone when they belong to a routed request.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOfflineRecognizer } from './offline-recognizer.js';
import { loadRegistryText } from '../registry/index.js';
import { snapshotOf, travelCards } from '../../test/support/registry-fixtures.js';
import type { RegistrySnapshot } from '../registry/types.js';
import { readTurnQuery } from '../understanding/index.js';

const travel = snapshotOf(travelCards());
const ecommerceLoaded = loadRegistryText(readFileSync(new URL('../../examples/ecommerce/agents_config.yaml', import.meta.url), 'utf8'), 'agents_config.yaml', { env: {} });
if (!ecommerceLoaded.ok) throw new Error('the e-commerce sample registry does not load');
const ecommerce = ecommerceLoaded.snapshot;
const recognizer = createOfflineRecognizer({ now: () => new Date(2026, 10, 25, 12, 0) });
const recognize = (query: string, snapshot: RegistrySnapshot) => recognizer.recognize({ ...readTurnQuery(query), history: [], pendingAgents: [], snapshot });

describe('parts no agent took', () => {
  it('a part nearest to a card routed this turn is part of that request: nothing is asked or said', async () => {
    for (const query of ['帮我订一家上海的酒店，后天入住', '帮我订北京的酒店，评分在4分以上，给我推荐一家吧', '订明天从上海到北京的机票，要靠窗的座位，尽量上午出发']) {
      const result = await recognize(query, travel);
      expect(result.kind, query).toBe('business');
      expect(result.askAbout, query).toBeUndefined();
      expect(result.unplaced, query).toBeUndefined();
    }
  });

  it('a part nearest to a card not routed is asked about, that card first', async () => {
    const result = await recognize('东西还没到，我要退款，订单号 1234567890', ecommerce);
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['refund_agent']);
    expect(result.askAbout?.query).toBe('东西还没到');
    expect(result.askAbout?.clarification.options[0]?.sub_agent_id).toBe('logistics_agent');
  });

  it('a value of a routed request is no part to ask about', async () => {
    const result = await recognize('帮我订北京的酒店，明天入住，安排明天早上7点首都机场接机，再告诉我北京明天的天气', travel);
    expect(result.intents.map((intent) => intent.agentId).sort()).toEqual(['hotel_agent', 'limo_agent', 'weather_agent']);
    expect(result.askAbout).toBeUndefined();
    expect(result.unplaced).toBeUndefined();
  });
});
