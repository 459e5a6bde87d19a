import { describe, expect, it } from 'vitest';
import { maskPersonalData } from './mask-personal-data.js';
import { createHeldStream, termPrefixTailLength, tokenTailLength } from './stream-hold-back.js';

const SECRET = 'sk-live-7f3a9b2c4d';
const redact = (text: string) => text.split(SECRET).join('[redacted]').split('weather_agent').join('天气查询');

/** Pushes every chunk, flushes, and returns the pieces that went out (empty ones dropped). */
function run(chunks: readonly string[], scrub = redact): string[] {
  const stream = createHeldStream({ scrub, terms: [SECRET, 'weather_agent', 'http://10.0.0.7:7101/invoke'] });
  return [...chunks.map((chunk) => stream.push(chunk)), stream.flush()].filter((piece) => piece !== '');
}

describe('held streams', () => {
  it('keeps a phone number split across two chunks whole in one piece, so masking sees it', () => {
    const pieces = run(['您的电话 1381234', '5678 已登记，', '稍等…']);
    expect(pieces.join('')).toBe('您的电话 13812345678 已登记，稍等…');
    expect(pieces.some((piece) => piece.includes('13812345678'))).toBe(true);
    expect(pieces.map(maskPersonalData).join('')).not.toMatch(/1381234|2345678/);
  });

  it('keeps e-mail addresses, spaced card numbers and ID numbers whole', () => {
    for (const [value, at] of [['zhang.san@example.com', 9], ['6222 0212 3456 7890 128', 10], ['11010519491231002X', 17]] as const) {
      const text = `资料：${value}，谢谢`;
      const cut = 3 + at;
      const pieces = run([text.slice(0, cut), text.slice(cut)]);
      expect(pieces.join('')).toBe(text);
      expect(pieces.some((piece) => piece.includes(value)), value).toBe(true);
    }
  });

  it('redacts a header secret split across chunks, at any split point', () => {
    const text = `token ${SECRET} 已校验`;
    for (let cut = 1; cut < text.length; cut++) {
      const pieces = run([text.slice(0, cut), text.slice(cut)]);
      expect(pieces.join(''), `cut at ${cut}`).toBe('token [redacted] 已校验');
    }
  });

  it('holds back a tail that begins a guarded literal with separators in it', () => {
    const pieces = run(['地址 http://10.0.', '0.7:7101/invoke 不可用'], (text) => redact(text).split('http://10.0.0.7:7101/invoke').join('[internal address]'));
    expect(pieces.join('')).toBe('地址 [internal address] 不可用');
  });

  it('lets text that cannot grow into a value out at once (progress is not delayed)', () => {
    const stream = createHeldStream({ scrub: redact, terms: [SECRET] });
    expect(stream.push('正在调取报告…')).toBe('正在调取报告…');
    expect(stream.push('Checking flights... ')).toBe('Checking flights... ');
    expect(stream.push('Found 3')).toBe('Found ');
    // A word ending in "." may still be the local part of an e-mail address: it waits for the next chunk or the end.
    expect(stream.push(' options.')).toBe('3 ');
    expect(stream.flush()).toBe('options.');
  });

  it('measures tails: token runs (capped) and literal beginnings', () => {
    expect(tokenTailLength('电话 138 1234', 64)).toBe(8);
    expect(tokenTailLength('电话 138 ', 64)).toBe(4);
    expect(tokenTailLength('done...', 64)).toBe(7);
    expect(tokenTailLength('完成。', 64)).toBe(0);
    expect(tokenTailLength('x'.repeat(200), 64)).toBe(64);
    expect(termPrefixTailLength('key sk-li', [SECRET])).toBe(5);
    expect(termPrefixTailLength('key s', [SECRET, 'sk'])).toBe(1);
    expect(termPrefixTailLength(`key ${SECRET}`, [SECRET])).toBe(0);
  });
});
