import { describe, expect, it } from 'vitest';
import { maskPersonalData } from './mask-personal-data.js';
import { createHeldStream, termPrefixTailLength, tokenTailLength } from './stream-hold-back.js';

const SECRET = 'sk-live-7f3a9b2c4d';
const ADDRESS = 'http://127.0.0.1:7101/invoke';
const redact = (text: string) => text.split(SECRET).join('[redacted]').split('weather_agent').join('天气查询').split(ADDRESS).join('[internal address]');

/** Pushes every chunk, flushes, and returns the pieces that went out (empty ones dropped). */
function run(chunks: readonly string[], kind: 'tokens' | 'messages'): string[] {
  const stream = createHeldStream({ scrub: redact, secrets: [SECRET], terms: ['weather_agent', ADDRESS, '127.0.0.1'], kind });
  return [...chunks.map((chunk) => stream.push(chunk)), stream.flush()].filter((piece) => piece !== '');
}

describe.each(['tokens', 'messages'] as const)('held %s streams', (kind) => {
  it('keep a phone number split across two chunks whole in one piece, so masking sees it', () => {
    const pieces = run(['您的电话 1381234', '5678 已登记，', '稍等…'], kind);
    expect(pieces.join('')).toBe('您的电话 13812345678 已登记，稍等…');
    expect(pieces.some((piece) => piece.includes('13812345678'))).toBe(true);
    expect(pieces.map(maskPersonalData).join('')).not.toMatch(/1381234|2345678/);
  });

  it('keep e-mail addresses, spaced card numbers and ID numbers whole when split after the part that shows what they are', () => {
    for (const [value, at] of [['zhang.san@example.com', 13], ['6222 0212 3456 7890 128', 10], ['11010519491231002X', 7]] as const) {
      const text = `资料：${value}，谢谢`;
      const cut = 3 + at;
      const pieces = run([text.slice(0, cut), text.slice(cut)], kind);
      expect(pieces.join('')).toBe(text);
      expect(pieces.some((piece) => piece.includes(value)), value).toBe(true);
    }
  });

  it('redact a header secret split across chunks, at any split point', () => {
    const text = `token ${SECRET} 已校验`;
    for (let cut = 1; cut < text.length; cut++) {
      const pieces = run([text.slice(0, cut), text.slice(cut)], kind);
      expect(pieces.join(''), `cut at ${cut}`).toBe('token [redacted] 已校验');
    }
  });

  it('hide an endpoint address split after its first few characters', () => {
    expect(run(['地址 http://12', '7.0.0.1:7101/invoke 不可用'], kind).join('')).toBe('地址 [internal address] 不可用');
  });

  it('let text that cannot grow into anything guarded out at once', () => {
    const stream = createHeldStream({ scrub: redact, secrets: [SECRET], terms: [], kind });
    expect(stream.push('正在调取报告…')).toBe('正在调取报告…');
    expect(stream.push('Checking flights... ')).toBe('Checking flights... ');
    expect(stream.flush()).toBe('');
  });
});

describe('the two kinds of stream', () => {
  it('tokens hold every trailing word (it may be the start of a value); messages only what looks like one', () => {
    expect(run(['Found 3', ' options.'], 'tokens')).toEqual(['Found ', '3 ', 'options.']);
    expect(run(['查询进度 1', '查询进度 12', '查询进度 127', '订单 20261'], 'messages')).toEqual(['查询进度 1', '查询进度 12', '查询进度 127', '订单 ', '20261']);
  });

  it('messages hold any beginning of a secret but only longer beginnings of ids and addresses', () => {
    expect(run(['校验 s', 'k-live-7f3a9b2c4d'], 'messages')).toEqual(['校验 ', '[redacted]']);
    expect(run(['服务 wea', 'ther_agent 可用'], 'messages')).toEqual(['服务 wea', 'ther_agent 可用']);
    expect(run(['服务 weat', 'her_agent 可用'], 'messages')).toEqual(['服务 ', '天气查询 可用']);
  });
});

describe('tails', () => {
  it('measures token runs (capped) and literal beginnings', () => {
    expect(tokenTailLength('电话 138 1234', 64)).toBe(8);
    expect(tokenTailLength('电话 138 ', 64)).toBe(4);
    expect(tokenTailLength('done...', 64)).toBe(7);
    expect(tokenTailLength('完成。', 64)).toBe(0);
    expect(tokenTailLength('x'.repeat(200), 64)).toBe(64);
    expect(termPrefixTailLength('key sk-li', [SECRET])).toBe(5);
    expect(termPrefixTailLength('key s', [SECRET, 'sk'])).toBe(1);
    expect(termPrefixTailLength('key s', [SECRET], 4)).toBe(0);
    expect(termPrefixTailLength(`key ${SECRET}`, [SECRET])).toBe(0);
  });
});
