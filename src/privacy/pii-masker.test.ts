import { describe, expect, it } from 'vitest';
import { compileSafePattern } from '../util/safe-pattern.js';
import { isChineseIdNumber as isValidIdCard, isLuhnCardNumber as isLuhnValid } from './mask-personal-data.js';
import { createPiiMasker, maskPatternMatch } from './pii-masker.js';
import { costLedger } from '../util/cost-ledger.js';

const masker = createPiiMasker();

describe('createPiiMasker', () => {
  it('masks Chinese mobile numbers, with or without separators and +86', () => {
    expect(masker.mask('电话13812345678，谢谢')).toBe('电话138****5678，谢谢');
    expect(masker.mask('call +86 138-1234-5678')).toBe('call +86138****5678');
    expect(masker.mask('order 213812345678')).toBe('order 213812345678');
  });

  it('masks 18-digit ID numbers only when the checksum is valid', () => {
    expect(isValidIdCard('11010519491231002X')).toBe(true);
    expect(masker.mask('身份证11010519491231002X')).toBe('身份证110105********002X');
    expect(masker.mask('身份证110105194912310021')).toBe('身份证110105194912310021');
  });

  it('masks Luhn-valid bank card numbers only', () => {
    expect(isLuhnValid('6222021234567890128')).toBe(true);
    expect(masker.mask('卡号 6222 0212 3456 7890 128')).toBe('卡号 6222***********0128');
    expect(masker.mask('card 4111111111111111')).toBe('card 4111********1111');
    expect(masker.mask('tracking 4111111111111112')).toBe('tracking 4111111111111112');
  });

  it('masks e-mail addresses, dots in the local part included', () => {
    expect(masker.mask('mail zhang.san@example.com now')).toBe('mail zh***@example.com now');
  });

  it('masks registry patterns like the built-in kinds (ends kept, stars between) and walks nested values', () => {
    const compiled = compileSafePattern('M[0-9]{8}');
    if (!compiled.ok) throw new Error(compiled.error);
    const extra = createPiiMasker([{ name: 'member_no', pattern: compiled.pattern }]);
    expect(extra.maskDeep({ query: '会员 M12345678 电话 13812345678', list: ['a@b.cn'], n: 3 })).toEqual({
      query: '会员 M1*****78 电话 138****5678',
      list: ['a***@b.cn'],
      n: 3,
    });
  });

  it('keeps at most a quarter of a pattern match at each end, and stars a short match whole', () => {
    expect(maskPatternMatch('M12345678')).toBe('M1*****78');
    expect(maskPatternMatch('VIP-000123456789')).toBe('VIP*********6789');
    expect(maskPatternMatch('AB123')).toBe('*****');
    expect(maskPatternMatch('ABC1234')).toBe('A*****4');
    for (const value of ['M12345678', 'VIP-000123456789', 'AB123', 'ABC1234', '会员号码甲乙丙丁']) {
      const masked = maskPatternMatch(value);
      const kept = masked.replace(/\*/g, '');
      expect(kept.length * 2).toBeLessThanOrEqual([...value].length);
    }
  });

  it('masks a text that never comes again as mask does, masking it each time and never remembering it', () => {
    const compiled = compileSafePattern('M[0-9]{6}');
    if (!compiled.ok) throw new Error(compiled.error);
    const fresh = createPiiMasker([{ name: 'member', pattern: compiled.pattern }]);
    const texts = ['{"content":"电话13812345678，会员 M123456","seq":3}', 'mail me: zhang.san@example.com', 'plain words', '', '订单 A1001'];
    costLedger.enabled = true;
    costLedger.counts.clear();
    try {
      const once = texts.map((text) => fresh.maskFresh!(text));
      const twice = texts.map((text) => fresh.maskFresh!(text));
      expect(costLedger.counts.get('masking cache lookups') ?? 0).toBe(0);
      expect(costLedger.counts.get('masking passes')).toBe(8);
      expect(once).toEqual(texts.map((text) => fresh.mask(text)));
      expect(twice).toEqual(once);
      expect(once[0]).toBe('{"content":"电话138****5678，会员 M*****6","seq":3}');
    } finally {
      costLedger.enabled = false;
      costLedger.counts.clear();
    }
  });

  it('returns timestamps and ids at once, without a lookup, and still masks numbers written with spaces or dashes', () => {
    const fresh = createPiiMasker();
    const idMasked = masker.mask('id 110105194912310021');
    costLedger.enabled = true;
    costLedger.counts.clear();
    try {
      for (const text of ['2026-11-29T13:35:13.123Z', 'task_3f2a1b4c-9d8e-4f70-8123-0a1b2c3d4e5f', 'seq 1234567890 and 1234567890']) expect(fresh.mask(text)).toBe(text);
      expect(costLedger.counts.get('masking cache lookups') ?? 0).toBe(0);
      expect(fresh.mask('card 6222-0212-3456-7890-128')).toBe('card 6222***********0128');
      expect(fresh.mask('call 1 3 8 1 2 3 4 5 6 7 8')).toBe('call 138****5678');
      expect(fresh.mask('id 11010519491231002X')).toBe('id 110105********002X');
      expect(fresh.mask('id 110105194912310021')).toBe(idMasked);
      expect(costLedger.counts.get('masking cache lookups')).toBe(4);
    } finally {
      costLedger.enabled = false;
      costLedger.counts.clear();
    }
  });

  it('leaves ordinary text, dates and times alone', () => {
    const text = '帮我订2026-12-01北京的酒店，明天早上7点，订单 A1001，价格 880 元';
    expect(masker.mask(text)).toBe(text);
  });
});
