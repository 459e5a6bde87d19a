import { describe, expect, it } from 'vitest';
import { relatedServiceText, type Language } from '../i18n/index.js';
import { createTextScrubber, idTerms, inventedIdPattern, secretTerms } from './id-scrubber.js';

const CARDS = [
  { id: 'hotel_agent', name: '酒店服务' },
  { id: 'weather_agent', name: '天气查询' },
  { id: 'order', name: '订单查询' },
];

/** Ids as the content guard builds them: known ids become names, made-up ids a neutral phrase. */
function idScrubber(cards: typeof CARDS, language: Language) {
  return createTextScrubber({ terms: idTerms(cards), patterns: [inventedIdPattern(relatedServiceText(language))] });
}

describe('id scrubber', () => {
  it('replaces whole-word ids with names and invented *_agent ids with a neutral phrase', () => {
    const scrubber = idScrubber(CARDS, 'zh');
    expect(scrubber.scrub('我会调用hotel_agent和weather_agent，还有train_agent。')).toBe('我会调用酒店服务和天气查询，还有相关服务。');
    expect(scrubber.scrub('your order is hotel_agents-free; reorder, order.')).toBe('your 订单查询 is hotel_agents-free; reorder, 订单查询.');
    expect(idScrubber(CARDS, 'en').scrub('ask train_agent')).toBe('ask a related service');
  });

  it('streams: ids split across deltas never reach the user and the pieces add up to the scrubbed text', () => {
    const text = '已为您安排 hotel_agent 的预订，并通过weather_agent查询天气。更多信息请联系 train_agent 或查看 order 页面。'.repeat(3);
    const scrubber = idScrubber(CARDS, 'zh');
    for (const size of [1, 2, 3, 5, 7, 13]) {
      const stream = scrubber.stream();
      const shown: string[] = [];
      for (let start = 0; start < text.length; start += size) {
        const piece = stream.push(text.slice(start, start + size));
        if (piece) shown.push(piece);
      }
      shown.push(stream.flush());
      for (const piece of shown) expect(piece).not.toMatch(/_agent/);
      expect(shown.join('')).toBe(scrubber.scrub(text));
    }
  });
});

describe('text scrubber', () => {
  it('takes the longest match at each position across terms and patterns, in one pass', () => {
    const scrubber = createTextScrubber({
      terms: [
        { text: 'svc', replacement: 'SERVICE', wholeWord: true },
        { text: 'http://svc:9000/x', replacement: '[address]' },
        { text: 'SERVICE', replacement: 'never' },
      ],
      patterns: [{ pattern: /token-\d+/i, replacement: (match) => `[${match.length}]`, tail: (text) => /t(?:o(?:k(?:e(?:n(?:-\d*)?)?)?)?)?$/i.exec(text)?.[0].length ?? 0 }],
    });
    expect(scrubber.scrub('svc at http://svc:9000/x with TOKEN-1234; svc_2 stays')).toBe('SERVICE at [address] with [10]; svc_2 stays');
  });

  it('redacts secret values and their long words, but not short words', () => {
    const scrubber = createTextScrubber({ terms: secretTerms(['Token abcdef-123', 'abc']) });
    expect(scrubber.scrub('Token abcdef-123 | abcdef-123 | Token | abc')).toBe('[redacted] | [redacted] | Token | abc');
  });

  it('streams a term split across deltas at its very end only once it can be judged', () => {
    const stream = createTextScrubber({ terms: [{ text: 'secret-value', replacement: '***' }] }).stream();
    const pieces = ['x'.repeat(40), 'secret-', 'val', 'ue', 'y'.repeat(40)].map((delta) => stream.push(delta));
    pieces.push(stream.flush());
    for (const piece of pieces) expect(piece).not.toMatch(/secret|val/);
    expect(pieces.join('')).toBe(`${'x'.repeat(40)}***${'y'.repeat(40)}`);
  });
});
