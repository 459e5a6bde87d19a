/**
 * A multi-pattern literal matcher (Aho–Corasick): one pass over a text finds
 * every pattern ending at every position, in time linear in the text (plus the
 * matches reported), however many patterns there are. Built once from a fixed
 * list of patterns; reports, for each end position, the longest pattern that
 * ends there (which is also the one starting earliest), and the length of the
 * longest tail of the text that is still the beginning of some pattern.
 */

/** A built automaton over a fixed list of patterns. */
export interface LiteralAutomaton {
  /** Length of the longest pattern. */
  readonly longest: number;
  /**
   * Calls `found(start, end)` for the longest pattern ending at each position of the first `length` code
   * units of `codes` (`[start, end)`); returns the length of the longest tail of them that is a beginning of
   * some pattern (or a whole one), where a match could still be growing.
   */
  scan(codes: ArrayLike<number>, length: number, found: (start: number, end: number) => void): number;
}

/** Builds the automaton of `patterns` (empty ones are ignored). */
export function createLiteralAutomaton(patterns: Iterable<string>): LiteralAutomaton {
  // Node 0 is the root. Per node: its transitions, depth, failure link and the longest pattern that is a suffix of it.
  const next: Map<number, number>[] = [new Map()];
  const depth: number[] = [0];
  const fail: number[] = [0];
  const output: number[] = [0];
  let longest = 0;
  for (const pattern of patterns) {
    if (pattern.length === 0) continue;
    let node = 0;
    for (let index = 0; index < pattern.length; index += 1) {
      const code = pattern.charCodeAt(index);
      let child = next[node]!.get(code);
      if (child === undefined) {
        child = next.length;
        next.push(new Map());
        depth.push(depth[node]! + 1);
        fail.push(0);
        output.push(0);
        next[node]!.set(code, child);
      }
      node = child;
    }
    output[node] = pattern.length;
    longest = Math.max(longest, pattern.length);
  }
  // The characters patterns hold, numbered from 1; every other character is 0 and leads back to the root.
  const symbols = new Map<number, number>();
  for (const transitions of next) for (const code of transitions.keys()) if (!symbols.has(code)) symbols.set(code, symbols.size + 1);
  const width = symbols.size + 1;
  const asciiSymbol = new Int32Array(128);
  for (const [code, symbol] of symbols) if (code < 128) asciiSymbol[code] = symbol;
  const wideSymbols = [...symbols.keys()].some((code) => code >= 128);
  // Breadth first: a node's failure link is the longest proper suffix of it in the trie, and its row of the
  // full transition table (one array read per character of a text) is its own moves over its link's row.
  const table = new Int32Array(next.length * width);
  const queue: number[] = [];
  for (const [code, child] of next[0]!) {
    table[symbols.get(code)!] = child;
    queue.push(child);
  }
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head]!;
    if (output[node] === 0) output[node] = output[fail[node]!]!;
    const row = node * width;
    const linkRow = fail[node]! * width;
    for (let symbol = 0; symbol < width; symbol += 1) table[row + symbol] = table[linkRow + symbol]!;
    for (const [code, child] of next[node]!) {
      const symbol = symbols.get(code)!;
      fail[child] = table[linkRow + symbol]!;
      table[row + symbol] = child;
      queue.push(child);
    }
  }
  const symbolOf = (code: number): number => (code < 128 ? asciiSymbol[code]! : wideSymbols ? symbols.get(code) ?? 0 : 0);
  const step = (node: number, code: number): number => table[node * width + symbolOf(code)]!;
  return {
    longest,
    scan(codes, length, found) {
      if (longest === 0) return 0;
      let node = 0;
      for (let index = 0; index < length; index += 1) {
        node = step(node, codes[index]!);
        const matched = output[node]!;
        if (matched > 0) found(index + 1 - matched, index + 1);
      }
      return depth[node]!;
    },
  };
}
