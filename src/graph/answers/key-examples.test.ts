import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadRegistryText } from '../../registry/index.js';
import { keyExamples } from './key-examples.js';

const loaded = loadRegistryText(readFileSync('examples/ecommerce/agents_config.yaml', 'utf8'), 'examples/ecommerce/agents_config.yaml', { env: {} });
if (!loaded.ok) throw new Error('the e-commerce sample registry does not load');
const refund = loaded.snapshot.byId.get('refund_agent')!;

describe('keyExamples', () => {
  it("gives a pattern key the value found in the card's examples, not the sentence around it (another request)", () => {
    const orderId = refund.requiredKeys.find((spec) => spec.key === 'order_id')!;
    const examples = keyExamples(orderId, refund, new Date('2026-11-29T08:00:00Z'), 'zh');
    expect(examples).toEqual(['2024051812345678']);
    expect(examples.join(' ')).not.toMatch(/退款/u);
  });
});
