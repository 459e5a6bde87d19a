/**
 * Adds examples to cards of a registry file as text insertions, so everything
 * else — comments, key order, quoting, blank lines, indentation — stays byte
 * for byte (`switchboard review --apply`, docs/registry-changes.md). The
 * `yaml` document API finds where each card's `examples` list lies in the
 * source; a new item is written after the list's last one with the same
 * indentation (or inside a flow list before its `]`); a card with no
 * `examples` gets the key after its last field. The result is parsed again
 * and each list checked to be the old one plus the additions.
 */
import { isMap, isScalar, isSeq, parseDocument, stringify, type Node, type YAMLMap, type YAMLSeq } from 'yaml';

/** Examples to add, by agent id. */
export type ExampleAdditions = ReadonlyMap<string, readonly string[]>;

/** The new text and what was added where; or why nothing could be. */
export type AddExamplesResult =
  | { ok: true; text: string; added: { agent: string; example: string }[]; alreadyThere: { agent: string; example: string }[] }
  | { ok: false; message: string };

interface Insertion {
  at: number;
  text: string;
}

/** A scalar as a block list item writes it: plain when it reads back the same, else double-quoted. */
function blockScalar(value: string): string {
  const plain = stringify(value, { lineWidth: 0 }).replace(/\n$/u, '');
  return plain.includes('\n') ? JSON.stringify(value) : plain;
}

/** Where the line holding `index` starts. */
const lineStart = (text: string, index: number) => text.lastIndexOf('\n', index - 1) + 1;

/** Just after the end of the line holding `index - 1` (the text's end when it has no newline there). */
function afterLine(text: string, index: number): number {
  const newline = text.indexOf('\n', Math.max(0, index - 1));
  return newline < 0 ? text.length : newline + 1;
}

function examplesOf(card: YAMLMap): string[] {
  const list = card.get('examples', true);
  return isSeq(list) ? list.items.flatMap((item) => (isScalar(item) && typeof item.value === 'string' ? [item.value] : [])) : [];
}

function cardsOf(text: string): { ok: true; cards: Map<string, YAMLMap> } | { ok: false; message: string } {
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) return { ok: false, message: `the registry is not valid YAML: ${doc.errors[0]!.message}` };
  const agents = doc.get('agents', true);
  if (!isSeq(agents)) return { ok: false, message: 'the registry has no "agents" list' };
  const cards = new Map<string, YAMLMap>();
  for (const item of agents.items) {
    if (!isMap(item)) continue;
    const id = item.get('id');
    if (typeof id === 'string') cards.set(id, item);
  }
  return { ok: true, cards };
}

/** The insertion that appends `items` to a card's examples (or creates the list). */
function insertionFor(text: string, card: YAMLMap, items: readonly string[]): Insertion | string {
  const list = card.get('examples', true) as Node | undefined;
  if (isSeq(list)) return appendToList(text, list, items);
  if (list !== undefined && !(isScalar(list) && list.value === null)) return 'its "examples" is not a list';
  if (card.flow) return 'it is written in flow style ({ ... }); add the examples by hand';
  const firstKey = card.items[0]?.key as Node | undefined;
  if (!firstKey?.range || !card.range) return 'its place in the file is unknown';
  const indent = ' '.repeat(firstKey.range[0] - lineStart(text, firstKey.range[0]));
  const lines = items.map((item) => `${indent}  - ${blockScalar(item)}\n`).join('');
  if (list !== undefined) {
    // `examples:` with nothing after it: the items go on the lines below the key.
    const pair = card.items.find((entry) => isScalar(entry.key) && entry.key.value === 'examples');
    const keyNode = pair?.key as Node | undefined;
    if (!keyNode?.range) return 'its place in the file is unknown';
    return { at: afterLine(text, keyNode.range[1]), text: lines };
  }
  return { at: afterLine(text, card.range[1]), text: `${indent}examples:\n${lines}` };
}

function appendToList(text: string, list: YAMLSeq, items: readonly string[]): Insertion | string {
  if (!list.range) return 'its place in the file is unknown';
  if (list.flow) {
    const close = text.lastIndexOf(']', list.range[1] - 1);
    if (close < list.range[0]) return 'its "examples" list has no closing ]';
    const empty = list.items.length === 0;
    return { at: close, text: `${empty ? '' : ', '}${items.map((item) => JSON.stringify(item)).join(', ')}` };
  }
  const last = list.items.at(-1) as Node | undefined;
  if (!last?.range) return 'its place in the file is unknown';
  const start = lineStart(text, last.range[0]);
  const prefix = text.slice(start, last.range[0]);
  if (!/^\s*-\s+$/u.test(prefix)) return 'its last example does not start its own "- " line';
  return { at: afterLine(text, last.range[1]), text: items.map((item) => `${prefix}${blockScalar(item)}\n`).join('') };
}

/** Adds the examples to the named cards of the registry text. */
export function addExamples(text: string, additions: ExampleAdditions): AddExamplesResult {
  const read = cardsOf(text);
  if (!read.ok) return read;
  const insertions: Insertion[] = [];
  const added: { agent: string; example: string }[] = [];
  const alreadyThere: { agent: string; example: string }[] = [];
  const expected = new Map<string, string[]>();
  for (const [agent, wanted] of additions) {
    const card = read.cards.get(agent);
    if (!card) return { ok: false, message: `no agent "${agent}" in the registry` };
    const have = examplesOf(card);
    const fresh = [...new Set(wanted)].filter((example) => {
      if (!have.includes(example)) return true;
      alreadyThere.push({ agent, example });
      return false;
    });
    if (fresh.length === 0) continue;
    const insertion = insertionFor(text, card, fresh);
    if (typeof insertion === 'string') return { ok: false, message: `agent "${agent}": ${insertion}` };
    insertions.push(insertion);
    added.push(...fresh.map((example) => ({ agent, example })));
    expected.set(agent, [...have, ...fresh]);
  }
  let result = text;
  if (insertions.length > 0 && !result.endsWith('\n') && insertions.some((insertion) => insertion.at === result.length)) result += '\n';
  for (const insertion of [...insertions].sort((a, b) => b.at - a.at)) result = result.slice(0, insertion.at) + insertion.text + result.slice(insertion.at);
  const check = cardsOf(result);
  if (!check.ok) return { ok: false, message: `adding the examples would break the file (${check.message}); nothing was changed` };
  for (const [agent, list] of expected) {
    const got = examplesOf(check.cards.get(agent)!);
    if (JSON.stringify(got) !== JSON.stringify(list)) return { ok: false, message: `agent "${agent}": the edited file does not read back the examples added; nothing was changed` };
  }
  return { ok: true, text: result, added, alreadyThere };
}

/**
 * A unified diff of `after` against `before` when `after` only inserts lines
 * (what `addExamples` makes), with `context` lines around each change.
 */
export function insertionDiff(before: string, after: string, file: string, context = 2): string {
  const old = before.split('\n');
  const next = after.split('\n');
  const inserted = new Set<number>();
  let i = 0;
  for (let j = 0; j < next.length; j++) {
    if (i < old.length && old[i] === next[j]) i++;
    else inserted.add(j);
  }
  if (inserted.size === 0) return '';
  const out = [`--- ${file}`, `+++ ${file}`];
  const indices = [...inserted].sort((a, b) => a - b);
  let hunkStart = 0;
  while (hunkStart < indices.length) {
    let hunkEnd = hunkStart;
    while (hunkEnd + 1 < indices.length && indices[hunkEnd + 1]! - indices[hunkEnd]! <= 2 * context + 1) hunkEnd++;
    const from = Math.max(0, indices[hunkStart]! - context);
    const to = Math.min(next.length - 1, indices[hunkEnd]! + context);
    const adds = indices.slice(hunkStart, hunkEnd + 1).length;
    const oldFrom = from - indices.filter((index) => index < from).length;
    out.push(`@@ -${oldFrom + 1},${to - from + 1 - adds} +${from + 1},${to - from + 1} @@`);
    for (let line = from; line <= to; line++) out.push(`${inserted.has(line) ? '+' : ' '}${next[line]}`);
    hunkStart = hunkEnd + 1;
  }
  return `${out.join('\n')}\n`;
}
