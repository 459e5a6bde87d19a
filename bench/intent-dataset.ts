/**
 * A registry and a labelled set from a labelled intent dataset (a `text,label`
 * CSV such as the public banking or assistant intent sets): one card per label,
 * whose examples are some of that label's rows, and an `eval.jsonl` made of
 * other rows of the same label, so every eval line is a held-out utterance of
 * a known intent. Cards carry no keywords: routing has only the examples, the
 * name and a one-line description to go on, as with a real registry built
 * from logged requests.
 *
 * Each label's rows are shuffled with a generator seeded from `--seed` and the
 * label itself, so a label's split does not change when other labels are added
 * or removed. A label needs at least two rows (one example, one eval line).
 * Rows labelled oos / out_of_scope, and the lines of `--oos FILE`, become
 * out-of-scope lines (`"agents": []`).
 *
 * Run: `npx tsx bench/intent-dataset.ts --csv FILE [--examples 20] [--eval 20] [--oos FILE] [--seed 1] [--out DIR]`
 * then `npm run cli -- eval DIR/eval.jsonl --config DIR/agents_config.yaml`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { MAX_REGISTRY_BYTES } from '../src/registry/yaml-source.js';
import { createRandom, registryYaml } from './generated-registry.js';

/** Longest agent id the registry accepts (schemas/agents_config.schema.json, `identifier`). */
const MAX_ID_CHARS = 64;
/** Longest card name the registry accepts. */
const MAX_NAME_CHARS = 200;
/** Longest query the server accepts by default (src/http/chat-request.ts); longer rows are neither examples nor eval lines. */
const MAX_TEXT_CHARS = 4000;
/** First endpoint port; card `index` listens on `FIRST_PORT + index`. */
const FIRST_PORT = 7400;

const TEXT_HEADERS = ['text', 'query', 'utterance'];
const LABEL_HEADERS = ['label', 'category', 'intent'];
const OUT_OF_SCOPE_LABELS = new Set(['oos', 'out_of_scope']);

/**
 * Splits CSV text (RFC 4180) into rows of fields: quoted fields may hold
 * commas, doubled quotes and line breaks; rows end with CRLF, LF or CR. A
 * leading byte-order mark and blank lines are dropped. Throws on a quote left open.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let quoteLine = 0;
  let line = 1;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const endRow = () => {
    row.push(field);
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
    field = '';
  };
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index]!;
    if (quoted) {
      if (char === '"') {
        if (source[index + 1] === '"') {
          field += '"';
          index += 1;
        } else quoted = false;
      } else {
        if (char === '\n') line += 1;
        field += char;
      }
      continue;
    }
    if (char === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[index + 1] === '\n') index += 1;
      line += 1;
      endRow();
    } else field += char;
  }
  if (quoted) throw new SyntaxError(`CSV: the quoted field opened on line ${quoteLine} is never closed`);
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

/** One labelled utterance of a dataset. */
export interface IntentRow {
  text: string;
  label: string;
}

/** Rows of a `text,label` CSV, and the rows that could not be used. */
export interface IntentTable {
  rows: IntentRow[];
  /** Header names of the columns read as text and label. */
  columns: { text: string; label: string };
  /** Rows with a missing field, an empty text or label, or a text longer than the server accepts. */
  skipped: number;
}

/**
 * Reads a labelled CSV with a header row. The text column is the one named
 * text, query or utterance and the label column the one named label, category
 * or intent; without such names the first column is the text, the second the label.
 */
export function readIntentTable(csv: string): IntentTable {
  const [header, ...records] = parseCsv(csv);
  if (!header) throw new RangeError('CSV: the file is empty');
  const columns = findColumns(header);
  if (!columns) throw new RangeError(`CSV: expected a text column and a label column, found ${JSON.stringify(header)}`);
  const rows: IntentRow[] = [];
  let skipped = 0;
  for (const record of records) {
    const text = cleanText(record[columns.text] ?? '');
    const label = (record[columns.label] ?? '').trim();
    if (text === '' || label === '' || text.length > MAX_TEXT_CHARS) skipped += 1;
    else rows.push({ text, label });
  }
  return { rows, columns: { text: header[columns.text]!, label: header[columns.label]! }, skipped };
}

function findColumns(header: readonly string[]): { text: number; label: number } | undefined {
  const names = header.map((name) => name.trim().toLowerCase());
  const text = names.findIndex((name) => TEXT_HEADERS.includes(name));
  const label = names.findIndex((name) => LABEL_HEADERS.includes(name));
  if (text >= 0 && label >= 0) return { text, label };
  if (header.length < 2) return undefined;
  if (text >= 0) return { text, label: text === 0 ? 1 : 0 };
  if (label >= 0) return { text: label === 0 ? 1 : 0, label };
  return { text: 0, label: 1 };
}

/**
 * Out-of-scope queries from a file: the rows of a CSV whose label column says
 * oos or out_of_scope, or else every non-blank line of a plain text file.
 */
export function readOutOfScope(text: string): string[] {
  const firstLine = text.replace(/^\uFEFF/u, '').split(/\r?\n|\r/u, 1)[0] ?? '';
  const header = parseCsv(firstLine)[0] ?? [];
  if (header.some((name) => LABEL_HEADERS.includes(name.trim().toLowerCase()))) {
    return readIntentTable(text).rows.filter((row) => isOutOfScopeLabel(row.label)).map((row) => row.text);
  }
  return text
    .split(/\r?\n|\r/u)
    .map(cleanText)
    .filter((line) => line !== '' && line.length <= MAX_TEXT_CHARS);
}

function isOutOfScopeLabel(label: string): boolean {
  return OUT_OF_SCOPE_LABELS.has(label.trim().toLowerCase().replace(/[^a-z0-9]+/gu, '_'));
}

/** One line of text: whitespace runs become one space; control characters and unpaired surrogates (which YAML refuses) go. */
function cleanText(text: string): string {
  return text
    .replace(/\s+/gu, ' ')
    .replace(/[\p{Cc}\p{Cs}\uFEFF\uFFFE\uFFFF]/gu, '')
    .trim();
}

/** One card made from a label. */
export interface IntentAgent {
  id: string;
  label: string;
  name: string;
  description: string;
  examples: string[];
  /** Held-out rows of the label (never among `examples`). */
  heldOut: string[];
}

/** A registry, its labelled set and what was left out. */
export interface IntentRegistry {
  agents: IntentAgent[];
  yaml: string;
  evalLines: string[];
  inScope: number;
  outOfScope: number;
  /** Labels left out (fewer than two distinct rows), with their row counts. */
  skippedLabels: { label: string; rows: number }[];
  /** Rows dropped because the same text came earlier under the same label. */
  duplicates: number;
}

/**
 * Builds one card per label (in order of first appearance) with up to
 * `examples` of its rows, and up to `heldOut` of the remaining rows as eval
 * lines; out-of-scope rows and `outOfScope` texts are added as `"agents": []`.
 */
export function buildIntentRegistry(
  rows: readonly IntentRow[],
  options: { examples: number; heldOut: number; seed?: number; outOfScope?: readonly string[] },
): IntentRegistry {
  if (!Number.isInteger(options.examples) || options.examples < 1) throw new RangeError('examples must be a whole number ≥ 1');
  if (!Number.isInteger(options.heldOut) || options.heldOut < 0) throw new RangeError('eval must be a whole number ≥ 0');
  const seed = options.seed ?? 1;
  const byLabel = new Map<string, string[]>();
  const outOfScope: string[] = [];
  let duplicates = 0;
  for (const row of rows) {
    if (isOutOfScopeLabel(row.label)) {
      outOfScope.push(row.text);
      continue;
    }
    const texts = byLabel.get(row.label) ?? [];
    if (texts.includes(row.text)) duplicates += 1;
    else texts.push(row.text);
    byLabel.set(row.label, texts);
  }
  outOfScope.push(...(options.outOfScope ?? []));

  const agents: IntentAgent[] = [];
  const skippedLabels: { label: string; rows: number }[] = [];
  const usedIds = new Set<string>();
  for (const [label, texts] of byLabel) {
    if (texts.length < 2) {
      skippedLabels.push({ label, rows: texts.length });
      continue;
    }
    const shuffled = shuffle(texts, createRandom((seed ^ hashText(label)) >>> 0));
    // Keep at least one row for the eval set when one is asked for.
    const exampleCount = Math.min(options.examples, shuffled.length - (options.heldOut > 0 ? 1 : 0));
    const name = nameOf(label);
    agents.push({
      id: uniqueId(label, usedIds),
      label,
      name,
      description: `Requests about ${sentenceCase(name)}`,
      examples: shuffled.slice(0, exampleCount),
      heldOut: shuffled.slice(exampleCount, exampleCount + options.heldOut),
    });
  }
  if (FIRST_PORT + agents.length > 65535) throw new RangeError(`too many labels (${agents.length}) for one endpoint port each`);

  const evalLines: string[] = [];
  for (const agent of agents) for (const query of agent.heldOut) evalLines.push(JSON.stringify({ query, agents: [agent.id] }));
  const inScope = evalLines.length;
  for (const query of outOfScope) evalLines.push(JSON.stringify({ query, agents: [] }));

  const yaml = registryYaml('Generated by bench/intent-dataset.ts — one card per label of a labelled intent dataset.', agents, FIRST_PORT);
  const bytes = Buffer.byteLength(yaml);
  if (bytes > MAX_REGISTRY_BYTES) {
    throw new RangeError(`the registry would be ${bytes} bytes, above the ${MAX_REGISTRY_BYTES} the loader accepts; lower --examples`);
  }
  return { agents, yaml, evalLines, inScope, outOfScope: outOfScope.length, skippedLabels, duplicates };
}

/** `card_arrival` → `Card arrival`, clipped to the registry's name limit. */
function nameOf(label: string): string {
  const words = label.replace(/[_-]+/gu, ' ').replace(/\s+/gu, ' ').trim() || label.trim();
  return (words.charAt(0).toUpperCase() + words.slice(1)).slice(0, MAX_NAME_CHARS);
}

/** `Lost Or Stolen Card` → `lost or stolen card`; words in capitals (`ATM`) stay as they are. */
function sentenceCase(name: string): string {
  return name
    .split(' ')
    .map((word) => (/^\p{Lu}[^\p{Lu}]*$/u.test(word) ? word.toLowerCase() : word))
    .join(' ');
}

/** `Card Arrival!` → `card_arrival_agent`; a taken id gets `_2`, `_3`, ... */
function uniqueId(label: string, used: Set<string>): string {
  const suffix = '_agent';
  const base = label.toLowerCase().replace(/[^a-z0-9_]/gu, '_').replace(/_+/gu, '_').replace(/^_|_$/gu, '') || 'intent';
  for (let count = 1; ; count += 1) {
    const tail = count === 1 ? suffix : `${suffix}_${count}`;
    const id = `${base.slice(0, MAX_ID_CHARS - tail.length).replace(/_$/u, '')}${tail}`;
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

/** FNV-1a over the UTF-16 units of a text. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}

/** Fisher–Yates on a copy. */
function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      csv: { type: 'string' },
      examples: { type: 'string' },
      eval: { type: 'string' },
      oos: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
    },
    strict: true,
  });
  if (!values.csv) {
    console.error('usage: npx tsx bench/intent-dataset.ts --csv FILE [--examples 20] [--eval 20] [--oos FILE] [--seed 1] [--out DIR]');
    process.exitCode = 2;
    return;
  }
  const out = values.out ?? 'data/intent-dataset';
  const table = readIntentTable(await readFile(values.csv, 'utf8'));
  const generated = buildIntentRegistry(table.rows, {
    examples: Number(values.examples ?? 20),
    heldOut: Number(values.eval ?? 20),
    seed: Number(values.seed ?? 1),
    outOfScope: values.oos ? readOutOfScope(await readFile(values.oos, 'utf8')) : [],
  });
  if (table.skipped > 0) console.error(`skipped ${table.skipped} row${table.skipped === 1 ? '' : 's'} with an empty text or label, or a text over ${MAX_TEXT_CHARS} characters`);
  if (generated.duplicates > 0) console.error(`skipped ${generated.duplicates} row${generated.duplicates === 1 ? '' : 's'} repeating an earlier text of the same label`);
  for (const { label, rows } of generated.skippedLabels) console.error(`skipped label ${JSON.stringify(label)}: ${rows} row${rows === 1 ? '' : 's'}, at least 2 needed`);
  if (generated.agents.length === 0) {
    console.error('no label has 2 rows or more: nothing written');
    process.exitCode = 1;
    return;
  }
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'agents_config.yaml'), generated.yaml);
  await writeFile(join(out, 'eval.jsonl'), `${generated.evalLines.join('\n')}\n`);
  const counts = generated.agents.map((agent) => agent.examples.length);
  const [fewest, most] = [Math.min(...counts), Math.max(...counts)];
  console.log(
    `${generated.agents.length} labels, ${fewest === most ? most : `${fewest}–${most}`} examples per card, ` +
      `${generated.evalLines.length} eval lines (${generated.inScope} in scope, ${generated.outOfScope} out of scope); ` +
      `next: npm run cli -- eval ${join(out, 'eval.jsonl')} --config ${join(out, 'agents_config.yaml')}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
