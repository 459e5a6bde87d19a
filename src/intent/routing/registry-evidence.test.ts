import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRegistryFile } from '../../registry/index.js';
import type { RegistrySnapshot } from '../../registry/types.js';
import { createExampleRanker } from './example-ranker.js';
import { buildKeywordCharacters } from './registry-evidence.js';
import { buildModel } from './ranker-model.js';
import { calibrateGate } from './gate-calibration.js';
import { card } from '../../../test/support/registry-fixtures.js';
import { readTurnQuery } from '../../understanding/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('evidence the registry already holds (e-commerce sample registry)', () => {
  let snapshot: RegistrySnapshot;
  const ranker = createExampleRanker();
  const agentsOf = (query: string) => ranker.rank(readTurnQuery(query), snapshot).intents.map((intent) => intent.agentId).sort();
  beforeAll(async () => {
    const loaded = await loadRegistryFile(`${ROOT}examples/ecommerce/agents_config.yaml`, { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    snapshot = loaded.snapshot;
    ranker.prepare(snapshot);
  });

  it('an order number is an order-family request; the request\'s own words say which card', () => {
    // No keyword: the words before the number are the refund card's, the number says it is about an order.
    expect(agentsOf('衣服不合身，想退掉，订单号 1234567890')).toEqual(['refund_agent']);
    // A labelled number beside another request's keyword: the clause's words pick the order card.
    expect(agentsOf('帮我看下订单 2024051812345678 买了什么，然后开个发票')).toEqual(['invoice_agent', 'order_agent']);
  });

  it('a bare number or a number with no word of the family is no request', () => {
    expect(agentsOf('1234567890')).toEqual([]);
    expect(agentsOf('订单号 1234567890')).toEqual([]);
  });

  it('a Chinese word sharing a character with a keyword counts for that card', () => {
    // 配送 is the parcel card's keyword; "派送"/"送过来" are not, but its examples use 送 and no other card's do.
    expect(agentsOf('派送员说放驿站了，但我没找到')).toEqual(['logistics_agent']);
    expect(agentsOf('能不能让它明天上午送过来')).toEqual(['logistics_agent']);
  });

  it('stays out of the way when the registry holds no such evidence', () => {
    expect(agentsOf('今天股市怎么样')).toEqual([]);
    expect(agentsOf('帮我订一张去上海的机票')).toEqual([]);
  });
});

describe('keyword characters', () => {
  const cards = [
    card({ id: 'parcel', name: 'parcel', description: 'parcel', keywords: ['配送'], examples: ['什么时候能送到', '送货上门吗', '包裹到哪了'] }),
    card({ id: 'invoice', name: 'invoice', description: 'invoice', keywords: ['发票'], examples: ['开个发票', '发票抬头怎么改'] }),
    card({ id: 'shop', name: 'shop', description: 'shop', keywords: ['商品'], examples: ['有没有送赠品'] }),
  ];
  const keywordSpans = (text: string) =>
    ['配送', '发票', '商品'].flatMap((keyword) => (text.includes(keyword) ? [{ start: text.indexOf(keyword), end: text.indexOf(keyword) + keyword.length }] : []));
  const characters = buildKeywordCharacters(cards, keywordSpans);

  it('weighs a keyword character by the share of examples holding it outside a keyword, one more counted as no card\'s', () => {
    const evidence = characters.evidence('派送员来了吗');
    // 送: two parcel examples, one shop example → 2 / (3 + 1).
    expect(evidence[0]).toBeCloseTo(0.5);
    // The shop card's keyword has no 送: no weight for it, whatever its examples hold.
    expect(evidence[2]).toBe(0);
  });

  it('gives nothing to a character only ever seen inside a keyword (票 of 发票 in 机票)', () => {
    expect(characters.evidence('机票')[1]).toBe(0);
  });

  it('ignores masked spans', () => {
    expect(characters.evidence('送', [{ start: 0, end: 1 }])[0]).toBe(0);
  });
});

describe('gate calibration', () => {
  it('lowers the gate for a registry of varied examples and keeps it for a templated one', async () => {
    const varied = await loadRegistryFile(`${ROOT}examples/ecommerce/agents_config.yaml`, { env: {} });
    if (!varied.ok) throw new Error('sample registry invalid');
    const model = buildModel(varied.snapshot);
    const examples = model.cards.flatMap((entry, cardIndex) => entry.examples.map((text, exampleIndex) => ({ cardIndex, exampleIndex, text })));
    const gate = calibrateGate(model.index, examples, (text) => model.masksOf(text));
    expect(gate.sampled).toBeGreaterThan(8);
    expect(gate.minCovered).toBeLessThan(0.2);

    const templated = buildModel({
      ...varied.snapshot,
      enabledAgents: [0, 1, 2].map((n) => card({ id: `a${n}`, name: `a${n}`, description: 'x', examples: [`check the thing${n} status now`, `check thing${n} status please`, `thing${n} status check`, `the thing${n} status`] })),
    });
    const templatedExamples = templated.cards.flatMap((entry, cardIndex) => entry.examples.map((text, exampleIndex) => ({ cardIndex, exampleIndex, text })));
    expect(calibrateGate(templated.index, templatedExamples, () => [], { minExamples: 4 }).minCovered).toBe(0.2);
  });

  it('keeps the upper bounds when there are too few examples to measure', async () => {
    const model = buildModel({ ...(await loadRegistryFile(`${ROOT}examples/ecommerce/agents_config.yaml`, { env: {} }) as { snapshot: RegistrySnapshot }).snapshot });
    expect(calibrateGate(model.index, [], () => [])).toEqual({ minCovered: 0.2, minCentroid: 0.02, sampled: 0 });
  });
});

describe('leave-one-out scores', () => {
  it('an example scored without itself is no longer its own nearest example', async () => {
    const loaded = await loadRegistryFile(`${ROOT}examples/ecommerce/agents_config.yaml`, { env: {} });
    if (!loaded.ok) throw new Error('sample registry invalid');
    const model = buildModel(loaded.snapshot);
    const text = model.cards[0]!.examples[1]!;
    const document = model.index.exampleDocument(0, 1)!;
    const whole = model.index.score(text);
    const without = model.index.score(text, [], document);
    expect(whole.nearest[0]).toBeCloseTo(1, 5);
    expect(without.nearest[0]).toBeLessThan(0.99);
    expect(without.centroid[0]).toBeLessThan(whole.centroid[0]!);
    expect(without.covered[0]).toBeLessThanOrEqual(whole.covered[0]!);
    // Other cards are scored as before.
    expect(without.nearest[1]).toBeCloseTo(whole.nearest[1]!, 9);
  });
});
