import { describe, expect, it } from 'vitest';
import { createTextScrubber, type KeepWhole } from './id-scrubber.js';

/** Digit runs, kept whole and held while they may go on. */
const DIGITS: KeepWhole = {
  spans: (text) => [...text.matchAll(/[0-9]+/g)].map((match) => ({ start: match.index, end: match.index + match[0].length })),
  tail: (text) => /[0-9]*$/.exec(text)![0].length,
};
const scrubber = createTextScrubber({ terms: [{ text: 'secret-value', replacement: '***' }, { text: 'svc', replacement: 'SERVICE', wholeWord: true }], keepWhole: [DIGITS] });

describe('delta streams', () => {
  it('hold exactly the tail that could still grow: a beginning of a term, a match at the end, a kept value going on', () => {
    const stream = scrubber.stream();
    expect(stream.push('a s')).toBe('a ');
    expect(stream.push('ecret-')).toBe('');
    expect(stream.push('value')).toBe('');
    expect(stream.push(' and svc')).toBe('*** and ');
    expect(stream.push(' no 12')).toBe('SERVICE no ');
    expect(stream.push('34 x')).toBe('1234 x');
    expect(stream.flush()).toBe('');
  });

  it('judge a whole-word term at the end by the next character, and hold no beginning of it inside a word', () => {
    const stream = scrubber.stream();
    expect(stream.push('svc')).toBe('');
    // "sv" inside a word can never start the whole word "svc"; the last "s" may still begin "secret-value".
    expect(stream.push('_2 xsv')).toBe('svc_2 xsv');
    expect(stream.push('c svcs')).toBe('c svc');
    expect(stream.flush()).toBe('s');
  });
});

describe('message streams', () => {
  it('send a message at once when nothing in it can grow, else hold it whole until the next', () => {
    const stream = scrubber.messages<string>();
    expect(stream.push('ready.', 'a')).toEqual([{ text: 'ready.', tag: 'a' }]);
    expect(stream.push('step 1', 'b')).toEqual([]);
    expect(stream.push('step 2.', 'c')).toEqual([
      { text: 'step 1', tag: 'b' },
      { text: 'step 2.', tag: 'c' },
    ]);
  });

  it('move the part of a held message that a term or a kept value spans into the next message', () => {
    const stream = scrubber.messages<number>();
    expect(stream.push('code 12', 0)).toEqual([]);
    expect(stream.push('34 ok, secret-', 1)).toEqual([{ text: 'code ', tag: 0 }]);
    expect(stream.push('value gone', 2)).toEqual([
      { text: '1234 ok, ', tag: 1 },
      { text: '*** gone', tag: 2 },
    ]);
    expect(stream.flush()).toEqual([]);
  });

  it('keep each held message under its own tag while they wait together, and give each as it came', () => {
    const stream = scrubber.messages<number>();
    // "s", then "secret-" may still begin a term: the messages wait, then go out as they came (no value spans them).
    expect(stream.push('a s', 0)).toEqual([]);
    expect(stream.push('ecret-', 1)).toEqual([]);
    expect(stream.push('x', 2)).toEqual([
      { text: 'a s', tag: 0 },
      { text: 'ecret-', tag: 1 },
      { text: 'x', tag: 2 },
    ]);
    // Still growing together at the end: each goes out under its own tag, never the last one's.
    expect(stream.push('ready s', 3)).toEqual([]);
    expect(stream.push('ecr', 4)).toEqual([]);
    expect(stream.flush()).toEqual([
      { text: 'ready s', tag: 3 },
      { text: 'ecr', tag: 4 },
    ]);
  });

  it('give the held message at the end', () => {
    const stream = scrubber.messages<number>();
    expect(stream.push('total 99', 7)).toEqual([]);
    expect(stream.flush()).toEqual([{ text: 'total 99', tag: 7 }]);
    expect(stream.flush()).toEqual([]);
  });
});
