import { describe, expect, it } from 'vitest';
import { compileSafePattern } from './safe-pattern.js';

function compiled(source: string, flags = '') {
  const result = compileSafePattern(source, flags);
  if (!result.ok) throw new Error(result.error);
  return result.pattern;
}

describe('compileSafePattern', () => {
  it('finds every match with its groups and positions', () => {
    const matches = compiled('订单\\s*([A-Z]\\d{4})').findAll('查订单 A1001 和订单 B2002');
    expect(matches.map((match) => [match.text, match.groups[0], match.start, match.end])).toEqual([
      ['订单 A1001', 'A1001', 1, 9],
      ['订单 B2002', 'B2002', 11, 19],
    ]);
  });

  it('runs a catastrophic-backtracking pattern in linear time', () => {
    const pattern = compiled('(a+)+$');
    const started = performance.now();
    expect(pattern.test(`${'a'.repeat(28)}!`)).toBe(false);
    expect(pattern.test(`${'a'.repeat(50_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('keeps the JS meaning of i, m, s and accepts \\u escapes', () => {
    expect(compiled('hotel', 'i').test('HOTEL')).toBe(true);
    expect(compiled('^b', 'm').test('a\nb')).toBe(true);
    expect(compiled('a.b', 's').test('a\nb')).toBe(true);
    expect(compiled('[\\u4e00-\\u9fa5]+').findAll('abc北京def')[0]?.text).toBe('北京');
    expect(compiled('\\u{1F600}').test('😀')).toBe(true);
    expect(compiled('\\\\u0041').test('\\u0041')).toBe(true);
  });

  it('rejects lookaround, backreferences, bad syntax and stateful flags with a reason', () => {
    expect(compileSafePattern('(?<=a)b')).toMatchObject({ ok: false, error: expect.stringMatching(/linear-time engine does not support/) });
    expect(compileSafePattern('(a)\\1')).toMatchObject({ ok: false, error: expect.stringMatching(/linear-time engine does not support/) });
    expect(compileSafePattern('(unclosed')).toMatchObject({ ok: false, error: expect.stringMatching(/invalid regular expression/) });
    expect(compileSafePattern('a', 'g')).toMatchObject({ ok: false, error: expect.stringMatching(/unsupported flag "g"/) });
  });

  it('replaces every match, astral characters included', () => {
    expect(compiled('M[0-9]{3}').replaceAll('😀 M123 中 M456', (match) => `<${match.text}>`)).toBe('😀 <M123> 中 <M456>');
  });
});
