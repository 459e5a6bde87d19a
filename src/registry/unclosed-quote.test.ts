import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePositionedYamlSource, parseYamlSource } from './yaml-source.js';
import { unclosedQuoteColumn } from './unclosed-quote.js';

const SHIPPED = readFileSync(new URL('../../agents_config.yaml', import.meta.url), 'utf8');

/** The shipped registry with the closing quote of the first quoted value on `lineNumber` removed. */
function withoutClosingQuote(lineNumber: number): { text: string; col: number } {
  const lines = SHIPPED.split('\n');
  const line = lines[lineNumber - 1]!;
  const open = line.indexOf('"');
  const close = line.indexOf('"', open + 1);
  expect(open, `line ${lineNumber} has a quoted value`).toBeGreaterThanOrEqual(0);
  lines[lineNumber - 1] = line.slice(0, close) + line.slice(close + 1);
  return { text: lines.join('\n'), col: open + 1 };
}

describe('YAML syntax errors start where the quote was left open', () => {
  it('an unclosed quote on a line of the shipped registry is reported on that line, not where the parser stopped', () => {
    const quoted = SHIPPED.split('\n').findIndex((line) => /:\s+"[^"]*"\s*$/.test(line)) + 1;
    expect(quoted).toBeGreaterThan(0);
    const { text, col } = withoutClosingQuote(quoted);
    const issues = parseYamlSource(text, 'agents_config.yaml').syntaxIssues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]).toMatchObject({ line: quoted, col });
    expect(issues[0]!.message).toMatch(/not closed on its line.*stopped at \d+:\d+/);
  });

  it('every quoted line of the shipped registry, opened and left open, points at itself', () => {
    const lines = SHIPPED.split('\n');
    const quotedLines = lines.map((line, index) => (/^\s*[\w-]+:\s+"[^"]*"\s*(#.*)?$/.test(line) ? index + 1 : 0)).filter((line) => line > 0);
    expect(quotedLines.length).toBeGreaterThan(0);
    for (const lineNumber of quotedLines) {
      const { text, col } = withoutClosingQuote(lineNumber);
      const first = parsePositionedYamlSource(text, 'agents_config.yaml').syntaxIssues[0];
      // Some removals still parse (the value runs on to the next quote and the file stays valid YAML); those have nothing to point at.
      if (first) expect({ line: first.line, col: first.col }, `quote of line ${lineNumber}`).toEqual({ line: lineNumber, col });
    }
  });

  it('leaves other syntax errors where the parser found them', () => {
    const text = 'version: 1\nagents:\n  - id: a\n    name: [unclosed\n    description: x\n';
    const [issue] = parseYamlSource(text, 'f.yaml').syntaxIssues;
    expect(issue!.message).not.toMatch(/not closed on its line/);
    // A legitimate value quoted over two lines is no suspect when the error lies elsewhere.
    const multiline = 'version: 1\nnote: "one\n  two"\nagents: [\n';
    const [later] = parseYamlSource(multiline, 'f.yaml').syntaxIssues;
    expect(later!.message).not.toMatch(/not closed on its line/);
  });

  it('reads quotes the way YAML does: escapes, doubled single quotes, comments, apostrophes inside words', () => {
    expect(unclosedQuoteColumn('  key: "a \\" b"')).toBeUndefined();
    expect(unclosedQuoteColumn("  key: 'it''s'")).toBeUndefined();
    expect(unclosedQuoteColumn('  key: value # a "comment')).toBeUndefined();
    expect(unclosedQuoteColumn("  - what's the weather")).toBeUndefined();
    expect(unclosedQuoteColumn('  key: "open')).toBe(8);
    expect(unclosedQuoteColumn("  - 'open")).toBe(5);
  });
});
