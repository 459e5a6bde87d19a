import { describe, expect, it } from 'vitest';
import { compileSafePattern } from '../util/safe-pattern.js';
import { createPiiMasker } from './pii-masker.js';
import { maskUndeclared } from './mask-undeclared.js';

describe('maskUndeclared', () => {
  it('keeps only the declared values readable, in text and nested values', () => {
    const outbound = maskUndeclared(createPiiMasker(), ['13912345678', '北京', 42]);
    expect(outbound.mask('会员 13912345678，经理 13700001111，邮箱 a.b@example.com')).toBe('会员 13912345678，经理 137****1111，邮箱 a.***@example.com');
    expect(outbound.maskDeep({ phone: 13912345678, other: 13700001111, list: ['13912345678 / 13700001111'] })).toEqual({
      phone: 13912345678,
      other: '137****1111',
      list: ['13912345678 / 137****1111'],
    });
  });

  it('masks everything when nothing personal is declared, registry patterns included', () => {
    const compiled = compileSafePattern('M[0-9]{8}');
    if (!compiled.ok) throw new Error(compiled.error);
    const masker = createPiiMasker([{ name: 'member_no', pattern: compiled.pattern }]);
    expect(maskUndeclared(masker, ['北京']).mask('M12345678 13912345678')).toBe('M1*****78 139****5678');
    expect(maskUndeclared(masker, ['M12345678']).mask('M12345678 M87654321')).toBe('M12345678 M8*****21');
  });

  it('cannot be fooled by text that already holds its marker characters', () => {
    const outbound = maskUndeclared(createPiiMasker(), ['13912345678']);
    expect(outbound.mask('\uE000\uE100\uE001 13912345678')).toBe('\uE000\uE100\uE001 139****5678');
  });
});
