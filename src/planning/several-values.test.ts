import { describe, expect, it } from 'vitest';
import { card, keySpec, patternSpec } from '../../test/support/registry-fixtures.js';
import { findSeveralValues } from './several-values.js';

const NOW = new Date(2026, 10, 22, 10, 0, 0);

// A registry of our own: a bill lookup keyed by a phone number and a data top-up whose amount is a pattern.
const bill = card({
  id: 'bill_lookup',
  name: '账单查询',
  description: '查询话费账单',
  keywords: ['话费', '账单'],
  requiredKeys: [keySpec('phone_number', '手机号码', { type: 'phone' }), keySpec('bill_month', '账单月份', patternSpec('(20\\d\\d-\\d\\d)'))],
});
const topUp = card({
  id: 'data_topup',
  name: '流量充值',
  description: '购买流量包',
  keywords: ['流量'],
  sideEffects: true,
  requiredKeys: [keySpec('phone_number', '手机号码', { type: 'phone' }), keySpec('data_gb', '流量大小', patternSpec('(\\d+)\\s*(?:G|GB)\\b', 'i'))],
});
const mail = card({ id: 'mail', name: 'Mail', description: 'send a note', keywords: ['email'], requiredKeys: [keySpec('to', 'address', { type: 'email' })] });
const count = card({ id: 'seats', name: 'Seats', description: 'hold seats', keywords: ['seats'], requiredKeys: [keySpec('seats', 'seats', { type: 'number' })] });

describe('findSeveralValues', () => {
  it('reads two phone numbers joined by 和 as two values', () => {
    const found = findSeveralValues('查一下13912345678和13800001111的话费，月份2026-10', bill, { phone_number: '13800001111', bill_month: '2026-10' }, NOW);
    expect(found?.key).toBe('phone_number');
    expect(found?.values).toEqual(['13912345678', '13800001111']);
    expect(found?.texts).toEqual(['查一下13912345678的话费，月份2026-10', '查一下13800001111的话费，月份2026-10']);
    expect(found?.own).toEqual([{ bill_month: '2026-10' }, { bill_month: '2026-10' }]);
  });

  it('reads two e-mail addresses and two numbers joined by "and"', () => {
    expect(findSeveralValues('email ann@example.com and bob@example.com', mail, { to: 'bob@example.com' }, NOW)?.values).toEqual(['ann@example.com', 'bob@example.com']);
    expect(findSeveralValues('hold 2 and 4 seats', count, { seats: 4 }, NOW)?.values).toEqual([2, 4]);
  });

  it('joins values that each repeat the same noun ("5G流量和10G流量", "5GB of data and 10GB of data")', () => {
    expect(findSeveralValues('充5G流量和10G流量，手机号13912345678', topUp, { data_gb: '10', phone_number: '13912345678' }, NOW)?.values).toEqual(['5', '10']);
    expect(findSeveralValues('add 5GB of data and 10GB of data', topUp, { data_gb: '10' }, NOW)?.values).toEqual(['5', '10']);
  });

  it('does not join values whose words between are not the noun repeated ("5G流量给13912345678和10G")', () => {
    expect(findSeveralValues('我在用5G网络，充10G流量', topUp, { data_gb: '10' }, NOW)).toBeUndefined();
  });

  it('keeps one phone number one value', () => {
    expect(findSeveralValues('查一下13912345678的话费', bill, { phone_number: '13912345678' }, NOW)).toBeUndefined();
  });
});
