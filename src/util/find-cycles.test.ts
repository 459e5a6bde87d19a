import { describe, expect, it } from 'vitest';
import { findCycles } from './find-cycles.js';

const graph = (edges: Record<string, string[]>) => [Object.keys(edges), (id: string) => edges[id] ?? []] as const;

describe('findCycles', () => {
  it('finds none in an acyclic graph, a diamond included', () => {
    expect(findCycles(...graph({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'] }))).toEqual([]);
    expect(findCycles([], () => [])).toEqual([]);
  });

  it('reports each cycle once, from where the walk re-entered it, ending where it started', () => {
    expect(findCycles(...graph({ a: ['b'], b: ['c'], c: ['a'] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(findCycles(...graph({ entry: ['b'], b: ['c'], c: ['d'], d: ['b'] }))).toEqual([['b', 'c', 'd', 'b']]);
    expect(findCycles(...graph({ x: [], a: ['a'] }))).toEqual([['a', 'a']]);
  });

  it('reports separate cycles separately, and ignores edges to unknown ids', () => {
    expect(findCycles(...graph({ a: ['b', 'ghost'], b: ['a'], c: ['d'], d: ['c'] }))).toEqual([
      ['a', 'b', 'a'],
      ['c', 'd', 'c'],
    ]);
  });
});
