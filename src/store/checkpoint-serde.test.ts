import { describe, expect, it, vi } from 'vitest';
import { MemorySaver } from '@langchain/langgraph';
import { readPlainCheckpoints } from './checkpoint-serde.js';

/** A saver's serializer before and after: LangGraph's own, and the one that reads plain JSON itself. */
function serializers() {
  const own = new MemorySaver().serde;
  const saver = readPlainCheckpoints(new MemorySaver());
  return { own, plain: saver.serde };
}

/** A random JSON-like value: nested objects and arrays of strings, numbers, booleans and nulls, keys from a small set. */
function randomValue(seed: number, depth = 0): unknown {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const make = (level: number): unknown => {
    const kind = Math.floor(next() * (level > 3 ? 4 : 6));
    if (kind === 0) return ['北京', 'A1001', '', 'lc', 'type'][Math.floor(next() * 5)];
    if (kind === 1) return Math.floor(next() * 1e6) / 100;
    if (kind === 2) return next() > 0.5;
    if (kind === 3) return null;
    if (kind === 4) return Array.from({ length: Math.floor(next() * 4) }, () => make(level + 1));
    const object: Record<string, unknown> = {};
    for (let index = Math.floor(next() * 4); index > 0; index--) object[['city', 'known_values', 'history', 'id', 'args', 'value'][Math.floor(next() * 6)]!] = make(level + 1);
    return object;
  };
  return make(depth);
}

describe('reading plain JSON checkpoints', () => {
  it('reads what LangGraph reads, for plain values and for every record its reviver rebuilds', async () => {
    const { own, plain } = serializers();
    const values: unknown[] = [
      { memory: { history: [{ role: 'user', content: '帮我订北京的酒店' }], known_values: { city: '北京' } }, count: 3, none: null },
      [1, 'two', [3, { four: 4 }]],
      { kept: new Map([['a', 1]]), seen: new Set(['x']), gone: undefined, error: new Error('boom') },
      { nested: { deeper: [{ lc: 2, type: 'undefined' }] } },
      { lc: 1, type: 'not a constructor', id: 'plain' },
      ...Array.from({ length: 200 }, (_, seed) => randomValue(seed + 1)),
    ];
    for (const value of values) {
      const [type, data] = await own.dumpsTyped(value);
      const expected = await own.loadsTyped(type, data);
      const read = await plain.loadsTyped(type, data);
      expect(read).toStrictEqual(expected);
      // The same reading from a string as from bytes.
      expect(await plain.loadsTyped(type, new TextDecoder().decode(data as Uint8Array))).toStrictEqual(expected);
    }
  });

  it('keeps a `__proto__` key as LangGraph reads it (its copy makes it the prototype)', async () => {
    const { own, plain } = serializers();
    const text = '{"a":{"__proto__":{"polluted":true},"b":1}}';
    const expected = (await own.loadsTyped('json', text)) as { a: Record<string, unknown> };
    const read = (await plain.loadsTyped('json', text)) as { a: Record<string, unknown> };
    expect(read).toStrictEqual(expected);
    expect(Object.getPrototypeOf(read.a)).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(expected.a)).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads a plain checkpoint without the reviver, and passes bytes and writes through', async () => {
    const saver = new MemorySaver();
    const ownLoads = vi.spyOn(saver.serde, 'loadsTyped');
    readPlainCheckpoints(saver);
    const [type, data] = await saver.serde.dumpsTyped({ channel_values: { query: '明天北京的天气', plan: [{ id: 't1' }] } });
    expect(await saver.serde.loadsTyped(type, data)).toEqual({ channel_values: { query: '明天北京的天气', plan: [{ id: 't1' }] } });
    expect(ownLoads).not.toHaveBeenCalled();
    const bytes = new Uint8Array([1, 2, 3]);
    expect(await saver.serde.loadsTyped('bytes', bytes)).toBe(bytes);
    expect(ownLoads).toHaveBeenCalledTimes(1);
    const [recordType, recordData] = await saver.serde.dumpsTyped({ seen: new Set([1]) });
    expect(await saver.serde.loadsTyped(recordType, recordData)).toEqual({ seen: new Set([1]) });
    expect(ownLoads).toHaveBeenCalledTimes(2);
  });
});
