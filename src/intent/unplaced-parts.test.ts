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

const telecomLoaded = loadRegistryText(
  `version: 1
agents:
  - id: broadband_agent
    name: 宽带办理
    description: 新装宽带、宽带报修
    examples: ["我想装宽带", "帮我办一条宽带", "宽带坏了"]
    keywords: ["宽带"]
    side_effects: true
    endpoint: { url: "http://127.0.0.1:7000/b", protocol: http-json }
    required_semantic_keys:
      - { key: phone, description: 联系电话, extract: { type: phone } }
  - id: topup_agent
    name: 话费充值
    description: 给手机号充话费
    examples: ["帮我充100块话费", "给我的手机充值", "充话费"]
    keywords: ["话费", "充值"]
    side_effects: true
    endpoint: { url: "http://127.0.0.1:7000/t", protocol: http-json }
    required_semantic_keys:
      - { key: phone, description: 手机号, extract: { type: phone } }
      - { key: amount, description: 充值金额, extract: { type: number } }
  - id: plan_agent
    name: 套餐查询
    description: 查询当前套餐和流量
    examples: ["我的套餐是什么", "还剩多少流量"]
    keywords: ["套餐", "流量"]
    endpoint: { url: "http://127.0.0.1:7000/p", protocol: http-json }
`,
  'telecom.yaml',
  { env: {} },
);
if (!telecomLoaded.ok) throw new Error('the telecom registry does not load');
const telecom = telecomLoaded.snapshot;

describe('parts no agent took', () => {
  it('a request of its own after 再 is asked about even when it holds a value a routed request could take', async () => {
    const result = await recognize('帮我装宽带，再给13812345678充50元', telecom);
    expect(result.intents.map((intent) => intent.agentId)).toEqual(['broadband_agent']);
    expect(result.askAbout?.query).toBe('给13812345678充50元');
    expect(result.askAbout?.clarification.options.map((option) => option.sub_agent_id)).toEqual(['topup_agent']);
    // The same value beside the request, with no request word of its own, is that request's.
    const value = await recognize('帮我装宽带，电话13812345678', telecom);
    expect(value.askAbout).toBeUndefined();
    expect(value.unplaced).toBeUndefined();
  });

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
