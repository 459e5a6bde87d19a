/**
 * Property: a secret, an id, an address or a personal value split at every
 * position across two or three streamed pieces, in an answer's deltas or in a
 * sub-agent's progress messages, never shows raw once each piece is masked on
 * its own (as storage masks each event), and the pieces otherwise add up to
 * the masked, guarded whole text. Both the content guard's streams and the
 * output guard's (content guard plus the prompt-leak check, as the turn
 * runner and the answer composer use them) are checked.
 */
import { describe, expect, it } from 'vitest';
import { card, snapshotOf } from '../../test/support/registry-fixtures.js';
import { createContentGuard } from '../privacy/content-guard.js';
import { createPiiMasker } from '../privacy/index.js';
import type { RegistrySnapshot } from '../registry/types.js';
import { compileSafePattern } from '../util/safe-pattern.js';
import { createOutputGuard } from './output-guard.js';

const SECRET = 'sk-live-7f3a9b2c4d';
const ADDRESS = 'http://127.0.0.1:7101/invoke';

const compiled = compileSafePattern('M[0-9]{8}');
if (!compiled.ok) throw new Error(compiled.error);
const memberPattern = { name: 'member_no', pattern: compiled.pattern };

const base = snapshotOf([
  card({
    id: 'weather_agent',
    name: '天气查询',
    description: 'weather',
    endpoint: { url: ADDRESS, protocol: 'http-json', timeoutMs: 1000, retries: 0, headers: { Authorization: `Bearer ${SECRET}` } },
  }),
]);
const snapshot: RegistrySnapshot = { ...base, supervisor: { ...base.supervisor, piiPatterns: [memberPattern] } };
const masker = createPiiMasker([memberPattern]);

/** Each value and the raw text that must never be shown (for an id: the id itself). */
const VALUES: readonly string[] = [
  '13812345678',
  '+8613812345678',
  '11010519491231002X',
  '6222021234567890128',
  '6222 0212 3456 7890 128',
  'zhang.san@example.com',
  'M20261122',
  SECRET,
  `Bearer ${SECRET}`,
  'weather_agent',
  'train_agent',
  ADDRESS,
  '127.0.0.1:7101',
];

const TEXTS = (value: string) => [`联系 ${value}，谢谢`, `call ${value} now`, value];

/** Every way to cut `text` into two and three non-empty pieces. */
function* splits(text: string): Generator<string[]> {
  for (let first = 1; first < text.length; first++) {
    yield [text.slice(0, first), text.slice(first)];
    for (let second = first + 1; second < text.length; second++) yield [text.slice(0, first), text.slice(first, second), text.slice(second)];
  }
}

const contentGuard = createContentGuard(snapshot, { inventedIdsIn: 'zh' });
const outputGuard = createOutputGuard(snapshot, { language: 'zh' });

describe.each([
  ['content guard, answer deltas', contentGuard, 'deltas'],
  ['content guard, progress messages', contentGuard, 'messages'],
  ['output guard, answer deltas', outputGuard, 'deltas'],
  ['output guard, progress messages', outputGuard, 'messages'],
] as const)('%s split at every position', (_label, guard, kind) => {
  const whole = (text: string) => ('clean' in guard ? guard.clean(text) : guard.scrub(text));
  const run = (chunks: readonly string[]): string[] => {
    if (kind === 'deltas') {
      const stream = guard.stream();
      return [...chunks.map((chunk) => stream.push(chunk)), stream.flush()];
    }
    const stream = guard.messages<number>();
    return [...chunks.flatMap((chunk, index) => stream.push(chunk, index)), ...stream.flush()].map((shown) => shown.text);
  };

  it.each(VALUES)('%s never shows raw; the masked pieces add up to the masked whole', (value) => {
    let cases = 0;
    for (const text of TEXTS(value)) {
      const expected = masker.mask(whole(text));
      expect(expected).not.toContain(value);
      for (const chunks of splits(text)) {
        const visible = run(chunks).map((piece) => masker.mask(piece)).join('');
        if (visible !== expected) expect(visible, JSON.stringify(chunks)).toBe(expected);
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThan(100);
  });
});

describe('where the guard streams cut', () => {
  const guard = createContentGuard(snapshot);
  const deltas = (chunks: readonly string[]) => {
    const stream = guard.stream();
    return [...chunks.map((chunk) => stream.push(chunk)), stream.flush()].filter((piece) => piece !== '');
  };
  const messages = (chunks: readonly string[]) => {
    const stream = guard.messages<number>();
    return [...chunks.flatMap((chunk, index) => stream.push(chunk, index)), ...stream.flush()];
  };

  it('keep a value split after the part that shows what it is whole in one piece', () => {
    for (const [value, at] of [['13812345678', 7], ['zhang.san@example.com', 13], ['6222 0212 3456 7890 128', 10], ['11010519491231002X', 7]] as const) {
      const text = `资料：${value}，谢谢`;
      const chunks = [text.slice(0, 3 + at), text.slice(3 + at)];
      for (const pieces of [deltas(chunks), messages(chunks).map((shown) => shown.text)]) {
        expect(pieces.join('')).toBe(text);
        expect(pieces.some((piece) => piece.includes(value)), value).toBe(true);
      }
    }
  });

  it('let answer text out as soon as it cannot grow into anything guarded, holding only the tail', () => {
    expect(deltas(['正在调取报告…', 'Checking flights... '])).toEqual(['正在调取报告…', 'Checking flights... ']);
    expect(deltas(['Found 3', ' options.'])).toEqual(['Found ', '3 ', 'options.']);
    expect(deltas(['地址 http://12', '7.0.0.1:7101/invoke 不可用'])).toEqual(['地址 ', '[internal address] 不可用']);
  });

  it('show progress messages as they came, one late when a message ends in a tail that could still grow', () => {
    const stream = guard.messages<number>();
    expect(stream.push('正在调取报告…', 0)).toEqual([{ text: '正在调取报告…', tag: 0 }]);
    expect(stream.push('查询进度 1', 1)).toEqual([]);
    expect(stream.push('查询进度 12', 2)).toEqual([{ text: '查询进度 1', tag: 1 }]);
    expect(stream.push('完成。', 3)).toEqual([
      { text: '查询进度 12', tag: 2 },
      { text: '完成。', tag: 3 },
    ]);
    expect(stream.flush()).toEqual([]);
  });

  it('move only what spans two progress messages into the later one: any beginning of an id, an address or a secret', () => {
    expect(messages(['服务 w', 'eather_agent 可用'])).toEqual([
      { text: '服务 ', tag: 0 },
      { text: '天气查询 可用', tag: 1 },
    ]);
    expect(messages(['校验 s', 'k-live-7f3a9b2c4d，完成'])).toEqual([
      { text: '校验 ', tag: 0 },
      { text: '[redacted]，完成', tag: 1 },
    ]);
    expect(messages(['电话 138', '12345678，', '订单 20261'])).toEqual([
      { text: '电话 ', tag: 0 },
      { text: '13812345678，', tag: 1 },
      { text: '订单 20261', tag: 2 },
    ]);
    expect(messages(['联系 zhang', '.san@example.com'])).toEqual([
      { text: '联系 ', tag: 0 },
      { text: 'zhang.san@example.com', tag: 1 },
    ]);
  });
});
