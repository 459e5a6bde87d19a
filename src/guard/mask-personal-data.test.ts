import { describe, expect, it } from 'vitest';
import { isChineseIdNumber, isLuhnCardNumber, maskPersonalData, maskPersonalDataDeep } from './mask-personal-data.js';

describe('maskPersonalData', () => {
  it('masks a mobile number in the 138****5678 style', () => {
    expect(maskPersonalData('我的电话是13812345678，请回电')).toBe('我的电话是138****5678，请回电');
    expect(maskPersonalData('call +8613812345678')).toBe('call +86138****5678');
  });

  it('masks checksum-valid ID numbers and Luhn-valid card numbers only', () => {
    expect(isChineseIdNumber('11010519491231002X')).toBe(true);
    expect(isChineseIdNumber('110105194912310021')).toBe(false);
    expect(maskPersonalData('身份证11010519491231002X')).toBe('身份证110105********002X');
    expect(maskPersonalData('身份证110105194912310021')).toBe('身份证110105194912310021');
    expect(isLuhnCardNumber('4111111111111112')).toBe(false);
    expect(isLuhnCardNumber('4111111111111111')).toBe(true);
    expect(maskPersonalData('card 4111 1111 1111 1111 ok')).toBe('card 4111********1111 ok');
    expect(maskPersonalData('订单号 20261201000123')).toBe('订单号 20261201000123');
  });

  it('masks e-mail addresses but keeps the domain', () => {
    expect(maskPersonalData('发到 zhang.san@example.com 谢谢')).toBe('发到 zh***@example.com 谢谢');
  });

  it('masks every string of a nested value and keeps the keys', () => {
    const masked = maskPersonalDataDeep({ phone: '13812345678', turns: [{ query: 'a@b.io' }], count: 2 });
    expect(masked).toEqual({ phone: '138****5678', turns: [{ query: 'a***@b.io' }], count: 2 });
  });
});
