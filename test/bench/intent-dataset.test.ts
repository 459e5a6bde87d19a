import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildIntentRegistry, parseCsv, readIntentTable, readOutOfScope, type IntentRow } from '../../bench/intent-dataset.js';
import { parseEvalSet } from '../../src/eval/eval-set.js';
import { loadRegistryFile } from '../../src/registry/index.js';

/** `count` rows for each label, texts numbered so every row is distinct. */
function rowsFor(labels: Record<string, number>): IntentRow[] {
  return Object.entries(labels).flatMap(([label, count]) => Array.from({ length: count }, (_, index) => ({ text: `${label} request number ${index}`, label })));
}

describe('parseCsv', () => {
  it('reads quoted commas, doubled quotes, CRLF and line breaks inside quotes', () => {
    const csv = '\uFEFFtext,label\r\n"where is my card, it has not come",card_arrival\r\n"a ""new"" card",card_arrival\r\n"two\r\nlines",exchange_rate\n\nplain,last';
    expect(parseCsv(csv)).toEqual([
      ['text', 'label'],
      ['where is my card, it has not come', 'card_arrival'],
      ['a "new" card', 'card_arrival'],
      ['two\r\nlines', 'exchange_rate'],
      ['plain', 'last'],
    ]);
  });

  it('keeps empty fields and refuses a quote left open', () => {
    expect(parseCsv('a,,c\n,x,\n')).toEqual([['a', '', 'c'], ['', 'x', '']]);
    expect(() => parseCsv('text,label\n"never closed,x\n')).toThrow(/opened on line 2 is never closed/);
  });
});

describe('readIntentTable', () => {
  it('finds the text and label columns by name, makes texts one line and counts unusable rows', () => {
    const table = readIntentTable('id,intent,utterance\n1,card_arrival,"  where   is\nmy card "\n2,card_arrival,\n3,,no label\n');
    expect(table.columns).toEqual({ text: 'utterance', label: 'intent' });
    expect(table.rows).toEqual([{ text: 'where is my card', label: 'card_arrival' }]);
    expect(table.skipped).toBe(2);
  });

  it('falls back to first column = text, second = label', () => {
    expect(readIntentTable('sentence,tag\nhello there,greet\n').rows).toEqual([{ text: 'hello there', label: 'greet' }]);
  });
});

describe('readOutOfScope', () => {
  it('takes every non-blank line of a text file, or the oos rows of a CSV', () => {
    expect(readOutOfScope('tell me a joke\r\n\n  who wrote   hamlet \n')).toEqual(['tell me a joke', 'who wrote hamlet']);
    expect(readOutOfScope('text,label\nsing a song,oos\nbook a flight,book_flight\n"what, is life",out_of_scope\n')).toEqual(['sing a song', 'what, is life']);
  });
});

describe('buildIntentRegistry', () => {
  it('splits each label into examples and held-out lines, the same way for the same seed', () => {
    const rows = rowsFor({ card_arrival: 10, exchange_rate: 6 });
    const first = buildIntentRegistry(rows, { examples: 4, heldOut: 3, seed: 5 });
    expect(buildIntentRegistry(rows, { examples: 4, heldOut: 3, seed: 5 })).toEqual(first);
    expect(first.agents.map((agent) => [agent.id, agent.examples.length, agent.heldOut.length])).toEqual([
      ['card_arrival_agent', 4, 3],
      ['exchange_rate_agent', 4, 2],
    ]);
    for (const agent of first.agents) {
      expect(agent.examples.filter((text) => agent.heldOut.includes(text))).toEqual([]);
      expect(new Set([...agent.examples, ...agent.heldOut]).size).toBe(agent.examples.length + agent.heldOut.length);
    }
    expect(first.inScope).toBe(5);
    const other = buildIntentRegistry(rows, { examples: 4, heldOut: 3, seed: 6 });
    expect(other.agents[0]!.examples).not.toEqual(first.agents[0]!.examples);
    // A label's split does not depend on the other labels.
    const alone = buildIntentRegistry(rowsFor({ card_arrival: 10 }), { examples: 4, heldOut: 3, seed: 5 });
    expect(alone.agents[0]!.examples).toEqual(first.agents[0]!.examples);
  });

  it('skips labels with fewer than two distinct rows and keeps one row for the eval set', () => {
    const rows = [...rowsFor({ lonely: 1, pair: 2 }), { text: 'twice', label: 'echo' }, { text: 'twice', label: 'echo' }];
    const built = buildIntentRegistry(rows, { examples: 20, heldOut: 20 });
    expect(built.skippedLabels).toEqual([{ label: 'lonely', rows: 1 }, { label: 'echo', rows: 1 }]);
    expect(built.duplicates).toBe(1);
    expect(built.agents.map((agent) => [agent.id, agent.examples.length, agent.heldOut.length])).toEqual([['pair_agent', 1, 1]]);
  });

  it('makes ids from labels, unique, within the id length limit', () => {
    const long = 'x'.repeat(80);
    const built = buildIntentRegistry(rowsFor({ 'Card Arrival!': 2, card_arrival: 2, 'card--arrival': 2, '查询余额': 2, '取消订单': 2, [long]: 2, [`${long}y`]: 2 }), {
      examples: 1,
      heldOut: 1,
    });
    const ids = built.agents.map((agent) => agent.id);
    expect(ids.slice(0, 5)).toEqual(['card_arrival_agent', 'card_arrival_agent_2', 'card_arrival_agent_3', 'intent_agent', 'intent_agent_2']);
    expect(ids[5]).toBe(`${'x'.repeat(58)}_agent`);
    expect(ids[6]).toBe(`${'x'.repeat(56)}_agent_2`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(built.agents.slice(0, 3).map((agent) => [agent.name, agent.description])).toEqual([
      ['Card Arrival!', 'Requests about card arrival!'],
      ['Card arrival', 'Requests about card arrival'],
      ['Card arrival', 'Requests about card arrival'],
    ]);
  });

  it('turns oos rows and the given out-of-scope texts into lines with no agent', () => {
    const built = buildIntentRegistry([...rowsFor({ pair: 2 }), { text: 'sing a song', label: 'oos' }], { examples: 1, heldOut: 1, outOfScope: ['tell me a joke'] });
    expect(built.agents.map((agent) => agent.id)).toEqual(['pair_agent']);
    expect(built.evalLines.slice(1).map((line) => JSON.parse(line))).toEqual([
      { query: 'sing a song', agents: [] },
      { query: 'tell me a joke', agents: [] },
    ]);
    expect([built.inScope, built.outOfScope]).toEqual([1, 2]);
  });
});

describe('written files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'intent-dataset-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('load with the registry loader and parse as an eval set', async () => {
    const csv = [
      'text,category',
      '"where is my card, it has not come",card_arrival',
      'my new card still has not arrived,card_arrival',
      '"when will my ""new"" card get here",card_arrival',
      'what is the exchange rate for euros,exchange_rate',
      '"rate for\r\nyen: today? #1 & [x] {y}",exchange_rate',
      'how many dollars is a pound,exchange_rate',
      "'quoted' - dash: colon,Lost-or-stolen card",
      'someone stole my card,Lost-or-stolen card',
    ].join('\r\n');
    await writeFile(join(dir, 'data.csv'), csv);
    const table = readIntentTable(await readFile(join(dir, 'data.csv'), 'utf8'));
    const built = buildIntentRegistry(table.rows, { examples: 2, heldOut: 1, outOfScope: readOutOfScope('tell me a joke\n') });
    await writeFile(join(dir, 'agents_config.yaml'), built.yaml);
    await writeFile(join(dir, 'eval.jsonl'), `${built.evalLines.join('\n')}\n`);

    const loaded = await loadRegistryFile(join(dir, 'agents_config.yaml'));
    expect(loaded.ok ? [] : loaded.issues).toEqual([]);
    if (!loaded.ok) return;
    const cards = loaded.snapshot.agents;
    expect(cards.map((card) => card.id)).toEqual(['card_arrival_agent', 'exchange_rate_agent', 'lost_or_stolen_card_agent']);
    expect(cards.map((card) => card.examples)).toEqual(built.agents.map((agent) => agent.examples));
    expect(cards.map((card) => card.keywords)).toEqual([[], [], []]);

    const parsed = parseEvalSet(await readFile(join(dir, 'eval.jsonl'), 'utf8'), new Set(cards.map((card) => card.id)));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.cases.map((item) => item.agents)).toEqual([['card_arrival_agent'], ['exchange_rate_agent'], ['lost_or_stolen_card_agent'], []]);
  });
});
