/**
 * Regular expressions written by registry authors run on re2js, an engine
 * whose matching time is linear in the input, so a pattern such as `(a+)+$`
 * cannot stall the server on a crafted query. Syntax the engine has no linear
 * form for (lookaround, backreferences) is rejected when the registry loads.
 * JS-style `\uXXXX` and `\u{X}` escapes are accepted and rewritten to RE2's
 * `\x{X}`; flags `i`, `m`, `s` keep their JS meaning, `u`, `v`, `d` are no-ops
 * (matching is always by code point).
 */
import { RE2JS } from 're2js';

/** One match: the whole text matched and its capture groups (null when a group did not take part). */
export interface PatternMatch {
  readonly text: string;
  readonly groups: readonly (string | null)[];
  readonly start: number;
  readonly end: number;
}

/** A compiled, linear-time pattern. */
export interface SafePattern {
  readonly source: string;
  readonly flags: string;
  /** Every non-overlapping match, left to right. */
  findAll(text: string): PatternMatch[];
  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean;
  /** `text` with every match replaced by what `replace` returns for it. */
  replaceAll(text: string, replace: (match: PatternMatch) => string): string;
}

/** Outcome of compiling: a pattern, or why the pattern cannot be used. */
export type CompileResult = { ok: true; pattern: SafePattern } | { ok: false; error: string };

const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  u: 0,
  v: 0,
  d: 0,
};

/** Compiles a pattern for the linear-time engine; never throws. */
export function compileSafePattern(source: string, flags = ''): CompileResult {
  let bits = 0;
  for (const flag of flags) {
    const bit = FLAG_BITS[flag];
    if (bit === undefined) return { ok: false, error: `unsupported flag "${flag}" (allowed: d, i, m, s, u, v)` };
    bits |= bit;
  }
  try {
    // Compiling (never running) a JS RegExp gives the familiar syntax messages.
    new RegExp(source, flags.replace(/[uv]/g, ''));
  } catch (error) {
    return { ok: false, error: `invalid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}` };
  }
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(rewriteUnicodeEscapes(source), bits);
  } catch (error) {
    const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
    return { ok: false, error: `pattern uses syntax the linear-time engine does not support (lookaround, backreferences): ${reason}` };
  }
  return { ok: true, pattern: wrap(engine, source, flags) };
}

function wrap(engine: RE2JS, source: string, flags: string): SafePattern {
  const groupCount = engine.groupCount();
  const findAll = (text: string): PatternMatch[] => {
    const matcher = engine.matcher(text);
    const matches: PatternMatch[] = [];
    while (matcher.find()) {
      const groups: (string | null)[] = [];
      for (let index = 1; index <= groupCount; index += 1) groups.push(matcher.group(index));
      matches.push({ text: matcher.group() ?? '', groups, start: matcher.start(), end: matcher.end() });
    }
    return matches;
  };
  return {
    source,
    flags,
    findAll,
    test: (text) => engine.matcher(text).find(),
    replaceAll(text, replace) {
      let output = '';
      let last = 0;
      for (const match of findAll(text)) {
        output += text.slice(last, match.start) + replace(match);
        last = match.end;
      }
      return output + text.slice(last);
    },
  };
}

/** Rewrites `\uXXXX` / `\u{X}` (JS) into `\x{X}` (RE2), leaving escaped backslashes alone. */
function rewriteUnicodeEscapes(source: string): string {
  let output = '';
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (char !== '\\') {
      output += char;
      continue;
    }
    const next = source[index + 1];
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(source.slice(index + 2));
      const plain = /^[0-9a-fA-F]{4}/.exec(source.slice(index + 2));
      if (braced) {
        output += `\\x{${braced[1]}}`;
        index += 1 + braced[0].length;
        continue;
      }
      if (plain) {
        output += `\\x{${plain[0]}}`;
        index += 1 + plain[0].length;
        continue;
      }
    }
    output += char + (next ?? '');
    index += 1;
  }
  return output;
}
