/**
 * YAML parsing that keeps node positions, so every problem found later (by ajv
 * or by the cross-checks) can point at a `line:col` in the user's file.
 *
 * Positions are costly: the `yaml` package's position-keeping parse takes about
 * ten times as long as a plain parse on a 100 KB registry, which dominated
 * hot-reload latency. So the data comes from a fast plain parse (js-yaml, YAML
 * 1.2 core schema, like `yaml`'s default), and the positioned document is built
 * only when something asks for a position, i.e. when there is an issue or a
 * warning to report. Anything the fast parser rejects goes through the `yaml`
 * package, whose messages and positions are the ones users see.
 *
 * Mistakes in a registry must not take the server down, so the text is capped
 * in size and the data in how far YAML aliases may multiply it: a few KB of
 * nested aliases (a "billion laughs" file) expand to millions of nodes that
 * validation would walk for minutes. Both limits are checked before anything
 * walks the data.
 */
import jsYaml from 'js-yaml';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { ConfigIssue } from './types.js';
import { blameUnclosedQuote } from './unclosed-quote.js';

/** Largest registry file accepted, in bytes. */
export const MAX_REGISTRY_BYTES = 2 * 1024 * 1024;

/** How many nodes YAML aliases may add on top of the ones written in the file. */
export const MAX_ALIAS_EXPANSION = 50_000;

/**
 * Most characters of text (string values and keys, counted in UTF-16 units,
 * two bytes each in memory) the data may hold once aliases are expanded: four
 * times the file cap. A few aliases of one long string stay under the node cap
 * yet make every later walk (validation, the agents list) handle gigabytes.
 * Counted from each string's length, so the count itself is as cheap as the
 * node count.
 */
export const MAX_EXPANDED_CHARS = 4 * MAX_REGISTRY_BYTES;

/** A parsed registry file: its plain data plus a way back to positions. */
export interface YamlSource {
  readonly file: string;
  readonly data: unknown;
  /** YAML syntax errors; when non-empty `data` must not be trusted. */
  readonly syntaxIssues: ConfigIssue[];
  /** Position of the node a JSON pointer names (or of its deepest existing ancestor). */
  positionOf(pointer: string, options?: { key?: boolean }): { line: number; col: number };
  /** Builds an issue positioned at the node a JSON pointer names. */
  issueAt(pointer: string, message: string, options?: { key?: boolean }): ConfigIssue;
}

/** Splits a JSON pointer (`/agents/0/id`) into unescaped segments. */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Joins segments into a JSON pointer, escaping `~` and `/`. */
export function joinPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => '/' + String(segment).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

let yamlParses = 0;

/** How many times this thread parsed a registry text (plain or positioned); a clean reload costs one in the whole process. */
export function yamlParseCount(): number {
  return yamlParses;
}

/**
 * Parses YAML text; never throws. The plain data comes from a fast parse; the
 * positioned document is built lazily, the first time a position is needed.
 */
export function parseYamlSource(text: string, file: string): YamlSource {
  yamlParses += 1;
  const tooLarge = sizeIssue(text, file);
  if (tooLarge) return failedSource(file, tooLarge);
  let data: unknown;
  try {
    data = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, json: false, filename: file });
  } catch {
    return parsePositionedYamlSource(text, file);
  }
  const expansion = expansionIssue(data, file);
  if (expansion) return failedSource(file, expansion);
  return sourceFromParsed(data, text, file);
}

/**
 * A source over data parsed elsewhere (the reload worker's parse, handed over
 * as a structured clone): nothing is parsed again unless a position is asked
 * for, i.e. unless the build on this thread finds something to report.
 */
export function sourceFromParsed(data: unknown, text: string, file: string): YamlSource {
  let positioned: YamlSource | undefined;
  const withPositions = (): YamlSource => (positioned ??= parsePositionedYamlSource(text, file));
  return {
    file,
    data,
    syntaxIssues: [],
    positionOf: (pointer, options) => withPositions().positionOf(pointer, options),
    issueAt: (pointer, message, options) => withPositions().issueAt(pointer, message, options),
  };
}

/** Parses YAML text with the `yaml` package, keeping node positions; never throws. */
export function parsePositionedYamlSource(text: string, file: string): YamlSource {
  yamlParses += 1;
  const tooLarge = sizeIssue(text, file);
  if (tooLarge) return failedSource(file, tooLarge);
  const lineCounter = new LineCounter();
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });

  const toPosition = (offset: number): { line: number; col: number } => {
    const position = lineCounter.linePos(Math.max(0, Math.min(offset, text.length)));
    return { line: position.line, col: position.col };
  };

  // After the first real syntax error the parser's view of the rest is off, so
  // what follows is mostly echoes of it: report errors up to that one only.
  // Duplicate keys before it are independent mistakes and are all reported.
  const firstSyntaxError = document.errors.findIndex((error) => error.code !== 'DUPLICATE_KEY');
  const reported = firstSyntaxError === -1 ? document.errors : document.errors.slice(0, firstSyntaxError + 1);
  const omitted = document.errors.length - reported.length;
  const syntaxIssues: ConfigIssue[] = reported.map((error, index) => {
    const { line, col } = toPosition(error.pos[0]);
    const message = error.message.replace(/\s+/g, ' ').trim();
    const note = omitted > 0 && index === reported.length - 1 ? ` (${omitted} later error${omitted === 1 ? '' : 's'} not shown: fix this one first)` : '';
    if (index === firstSyntaxError) {
      // An unclosed quote earlier on is where the problem starts; the parser only noticed here.
      const blamed = blameUnclosedQuote(text, line, (repaired) => stopsNoLater(repaired, error.pos[0] + 1));
      if (blamed) {
        return { file, ...blamed, pointer: '', message: `YAML syntax error: this quoted value is not closed on its line (the parser read on and stopped at ${line}:${col}: ${message})${note}` };
      }
    }
    return { file, line, col, pointer: '', message: `YAML syntax error: ${message}${note}` };
  });

  const positionOf = (pointer: string, options: { key?: boolean } = {}): { line: number; col: number } => {
    let node: unknown = document.contents;
    let lastRange: readonly number[] | undefined = (node as Node | null)?.range ?? undefined;
    const segments = splitPointer(pointer);
    for (let index = 0; index < segments.length; index += 1) {
      const segment = segments[index] as string;
      const isLast = index === segments.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === segment);
        if (!pair) break;
        const keyNode = pair.key as Node;
        const valueNode = pair.value as Node | null;
        if (isLast && options.key) {
          lastRange = keyNode.range ?? lastRange;
          node = keyNode;
          break;
        }
        if (valueNode?.range && valueNode.range[0] !== valueNode.range[1]) {
          node = valueNode;
          lastRange = valueNode.range;
        } else {
          // `key:` with no value: point at the key itself.
          node = valueNode;
          lastRange = keyNode.range ?? lastRange;
        }
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)] as Node | undefined;
        if (!item) break;
        node = item;
        lastRange = item.range ?? lastRange;
      } else {
        break;
      }
    }
    return lastRange ? toPosition(lastRange[0] as number) : { line: 1, col: 1 };
  };

  let data: unknown;
  if (syntaxIssues.length === 0) {
    try {
      data = document.toJS({ maxAliasCount: 1000 });
    } catch (error) {
      syntaxIssues.push({ file, line: 1, col: 1, pointer: '', message: `YAML error: ${(error as Error).message}` });
    }
    const expansion = syntaxIssues.length === 0 ? expansionIssue(data, file) : null;
    if (expansion) syntaxIssues.push(expansion);
  }

  return {
    file,
    data,
    syntaxIssues,
    positionOf,
    issueAt(pointer, message, options) {
      const { line, col } = positionOf(pointer, options);
      return { file, line, col, pointer, message };
    },
  };
}

function failedSource(file: string, issue: ConfigIssue): YamlSource {
  return {
    file,
    data: undefined,
    syntaxIssues: [issue],
    positionOf: () => ({ line: issue.line, col: issue.col }),
    issueAt: (pointer, message) => ({ file, line: issue.line, col: issue.col, pointer, message }),
  };
}

function sizeIssue(text: string, file: string): ConfigIssue | null {
  // UTF-8 is at most 3 bytes per UTF-16 unit, so the exact count is only needed near the limit.
  if (text.length * 3 <= MAX_REGISTRY_BYTES) return null;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_REGISTRY_BYTES) return null;
  return { file, line: 1, col: 1, pointer: '', message: `registry file is too large: ${bytes} bytes (limit ${MAX_REGISTRY_BYTES})` };
}

/**
 * How many nodes the data has once every alias is expanded, counted with one
 * visit per distinct object, so the count itself never blows up. An alias that
 * refers to its own ancestor (a cycle) is reported too.
 */
function expansionIssue(data: unknown, file: string): ConfigIssue | null {
  // Per object: its node count and characters of text once expanded (an aliased object is one object met again).
  const expanded = new Map<object, { nodes: number; bytes: number }>();
  const inProgress = new Set<object>();
  let distinct = 0;
  let cyclic = false;
  const sizeOf = (value: unknown): { nodes: number; bytes: number } => {
    if (value === null || typeof value !== 'object') {
      distinct += 1;
      return { nodes: 1, bytes: typeof value === 'string' ? value.length : 0 };
    }
    const known = expanded.get(value);
    if (known !== undefined) return known;
    if (inProgress.has(value)) {
      cyclic = true;
      return { nodes: 1, bytes: 0 };
    }
    inProgress.add(value);
    distinct += 1;
    const total = { nodes: 1, bytes: 0 };
    const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((child) => [undefined, child]) : Object.entries(value);
    for (const [key, child] of entries) {
      const size = sizeOf(child);
      total.nodes += size.nodes;
      total.bytes += size.bytes + (key === undefined ? 0 : key.length);
    }
    inProgress.delete(value);
    expanded.set(value, total);
    return total;
  };
  const total = sizeOf(data);
  const issue = (message: string): ConfigIssue => ({ file, line: 1, col: 1, pointer: '', message });
  if (cyclic) return issue('YAML error: an alias refers to a node that contains it (recursive data is not allowed)');
  if (total.nodes - distinct > MAX_ALIAS_EXPANSION) {
    return issue(`YAML error: aliases expand the file to ${total.nodes} nodes (aliases may add at most ${MAX_ALIAS_EXPANSION}); write the values out or share less`);
  }
  if (total.bytes > MAX_EXPANDED_CHARS) {
    return issue(`YAML error: aliases expand the file to ${total.bytes} characters of text (at most ${MAX_EXPANDED_CHARS}); write the values out or share less`);
  }
  return null;
}

/**
 * True when the repaired `text` (one character longer before `offset`) still
 * stops at or before where the original did: closing the quote did not help.
 */
function stopsNoLater(text: string, offset: number): boolean {
  const first = parseDocument(text, { prettyErrors: false, uniqueKeys: true }).errors.find((error) => error.code !== 'DUPLICATE_KEY');
  return first !== undefined && first.pos[0] <= offset;
}
