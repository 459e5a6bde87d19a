import { describe, expect, it } from 'vitest';
import { keySpec, patternSpec } from '../../../test/support/registry-fixtures.js';
import type { SemanticKeySpec } from '../../registry/types.js';
import { readAttributeClause } from './attribute-clause.js';

const NOW = new Date('2026-11-23T10:00:00+08:00');
const orderId: SemanticKeySpec = { ...keySpec('order_id', '订单号', patternSpec('\\b([A-Z]\\d{4})\\b')), descriptions: { zh: '订单号', en: 'order number' } };
const reason: SemanticKeySpec = { ...keySpec('reason', '退款原因', { type: 'enum', values: ['质量问题', '发错货', 'quality issue'] }), descriptions: { zh: '退款原因', en: 'refund reason' } };
const note = keySpec('note', '备注', { type: 'text' });

describe('readAttributeClause', () => {
  it.each([
    ['订单 A1001', 'order_id', 'A1001'],
    ['单号是 B2002', 'order_id', 'B2002'],
    ['订单号：C3003', 'order_id', 'C3003'],
    ['A1001', 'order_id', 'A1001'],
    ['order A1001', 'order_id', 'A1001'],
    ['for order A1001', 'order_id', 'A1001'],
    ['my order number is A1001', 'order_id', 'A1001'],
    ['原因是质量问题', 'reason', '质量问题'],
    ['reason: quality issue', 'reason', 'quality issue'],
  ])('"%s" only gives %s', (clause, key, value) => {
    expect(readAttributeClause(clause, [orderId, reason], NOW)).toEqual({ key, value });
  });

  it.each(['查一下订单 A1001', '订单 A1001 的状态', '订单 A1001 到哪了', 'check order A1001', '退 A1001', '质量问题太多了'])('"%s" holds a request of its own', (clause) => {
    expect(readAttributeClause(clause, [orderId, reason], NOW)).toBeUndefined();
  });

  it('reads a pattern that needs its label before the value through the label ("订单号是 A1001")', () => {
    const labelled = keySpec('order_id', '订单号', patternSpec('(?:订单号?)\\s*[:：#]?\\s*([A-Z]\\d{4})'));
    expect(readAttributeClause('订单号是 A1001', [labelled], NOW)).toEqual({ key: 'order_id', value: 'A1001' });
    expect(readAttributeClause('订单号改成 B2002', [labelled], NOW)).toEqual({ key: 'order_id', value: 'B2002' });
    expect(readAttributeClause('查订单号 A1001', [labelled], NOW)).toBeUndefined();
  });

  it('never reads a free-text key as an attribute: its rule takes any words', () => {
    expect(readAttributeClause('帮我查一下天气', [note], NOW)).toBeUndefined();
  });
});
