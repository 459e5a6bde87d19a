/**
 * Where a YAML syntax error really starts when a quote was left open. YAML
 * lets a quoted value run over several lines, so a parser reads on from an
 * unclosed quote and trips much later (a missing `"` on line 55 came out as an
 * error at 137:43). A registry has no reason to quote across lines, so the
 * first line before the error whose quote stays open is the suspect; it is
 * named only when closing it there lets the parser get further.
 */

/** The column (1-based) where the line opens a quoted value it does not close, or undefined. */
export function unclosedQuoteColumn(line: string): number | undefined {
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (char === '#' && (index === 0 || /\s/.test(line[index - 1]!))) return undefined;
    const startsValue = index === 0 || /[\s:,[{-]/.test(line[index - 1]!);
    if ((char === '"' || char === "'") && startsValue) {
      const close = closingQuote(line, index);
      if (close === undefined) return index + 1;
      index = close + 1;
      continue;
    }
    index += 1;
  }
  return undefined;
}

/** Index of the quote that closes the one at `open`, or undefined when the line ends first. */
function closingQuote(line: string, open: number): number | undefined {
  const quote = line[open]!;
  for (let index = open + 1; index < line.length; index += 1) {
    const char = line[index]!;
    if (quote === '"' && char === '\\') {
      index += 1;
      continue;
    }
    if (char === quote) {
      if (quote === "'" && line[index + 1] === "'") {
        index += 1;
        continue;
      }
      return index;
    }
  }
  return undefined;
}

/**
 * The 1-based line and column of the quote to blame for a syntax error found
 * at `errorLine`, or undefined. `stillFails` re-parses a repaired text and
 * says whether it still stops at (or before) the same place.
 */
export function blameUnclosedQuote(text: string, errorLine: number, stillFails: (repaired: string) => boolean): { line: number; col: number } | undefined {
  const lines = text.split('\n');
  for (let index = 0; index < Math.min(errorLine, lines.length); index += 1) {
    const line = lines[index]!.replace(/\r$/, '');
    const col = unclosedQuoteColumn(line);
    if (col === undefined) continue;
    const repaired = [...lines];
    repaired[index] = `${line}${line[col - 1]}`;
    return stillFails(repaired.join('\n')) ? undefined : { line: index + 1, col };
  }
  return undefined;
}
