import { describe, expect, it } from 'vitest';
import { isChineseIdNumber, isLuhnCardNumber, maskPersonalData, maskPersonalDataDeep, maskPersonalNumber, personalValueSpans, personalValueTail } from './mask-personal-data.js';

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

  it('reads a long run of address characters in linear time (a flooding sub-agent cannot stall the masking)', () => {
    const started = performance.now();
    for (const text of ['z'.repeat(65536), `a@${'b.'.repeat(32768)}`, `${'x.'.repeat(32768)}@example.com`]) maskPersonalData(text);
    // Each took seconds when every start inside a run was tried.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(maskPersonalData(`${'x'.repeat(30)}@example.com`)).toBe('xx***@example.com');
  });

  it('masks every string of a nested value and keeps the keys', () => {
    const masked = maskPersonalDataDeep({ phone: '13812345678', turns: [{ query: 'a@b.io' }], count: 2 });
    expect(masked).toEqual({ phone: '138****5678', turns: [{ query: 'a***@b.io' }], count: 2 });
  });

  it('masks personal values written as numbers: mobiles, long Luhn cards, identifiers past float precision; leaves quantities and timestamps', () => {
    expect(maskPersonalNumber(13812345678)).toBe('138****5678');
    expect(maskPersonalNumber(378282246310005)).toBe('3782*******0005');
    // 6222021234567890128 cannot be held exactly by a number; what is left is still an identifier.
    expect(maskPersonalNumber(6222021234567890128)).toMatch(/^6222\*{11}\d{4}$/);
    expect(maskPersonalNumber(110105194912310020)).toMatch(/^1101\*{10}\d{4}$/);
    for (const kept of [2, 12.5, -13812345678, 1795446528799, 12345678901, 123456789012345, 1e21]) expect(maskPersonalNumber(kept)).toBe(kept);
    expect(maskPersonalDataDeep({ phone: 13812345678, nights: 2, at: 1795446528799 })).toEqual({ phone: '138****5678', nights: 2, at: 1795446528799 });
  });
});

describe('values written in compatibility forms (NFKC)', () => {
  it('masks full-width digits, letters and signs as their plain forms, keeping the rest of the text as written', () => {
    expect(maskPersonalData('电话：１３５１２３４５６７８，谢谢')).toBe('电话：135****5678，谢谢');
    expect(maskPersonalData('邮箱 ｚｈａｎｇ＠ｅｘａｍｐｌｅ．ｃｏｍ。')).toBe('邮箱 zh***@example.com。');
    expect(maskPersonalData('卡号 ６２２２０２１２３４５６７８９０１２８')).toBe('卡号 6222***********0128');
    // Digits outside the basic plane (mathematical bold) too.
    expect(maskPersonalData('𝟏𝟑𝟓𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖')).toBe('135****5678');
  });

  it('keeps a full-width value whole in a stream', () => {
    expect(personalValueSpans('电话１３５１２３４５６７８。')).toEqual([{ start: 2, end: 13 }]);
    expect(personalValueTail('电话１３５１２')).toBe(5);
  });
});

describe('values with invisible characters inside', () => {
  it('masks an e-mail address, a mobile number and a card number read past zero-width and other invisible characters', () => {
    expect(maskPersonalData('邮箱 zh\u200bang.san@exa\u2060mple.com，谢谢')).toBe('邮箱 zh***@example.com，谢谢');
    expect(maskPersonalData('电话 138\u200d1234\ufeff5678')).toBe('电话 138****5678');
    expect(maskPersonalData('卡号 6222\u00ad021234567890128')).toBe('卡号 6222***********0128');
  });

  it('keeps such a value whole in a stream', () => {
    expect(personalValueSpans('a zh\u200bang@example.com b')).toEqual([{ start: 2, end: 20 }]);
    expect(personalValueTail('邮箱 zh\u200ban')).toBe(5);
  });
});
