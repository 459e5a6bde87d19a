import { describe, expect, it } from 'vitest';
import { countCjkCharacters, estimateMessagesTokens, estimateTokens } from './token-estimate.js';

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['abcd', 1],
    ['abcde', 2],
    ['北京', 2],
    ['北京，明天？', 6],
    ['こんにちは', 5],
    ['안녕', 2],
    ['book 北京 hotel', 2 + Math.ceil(12 / 4)],
  ])('%j -> %i', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it('counts CJK characters only', () => {
    expect(countCjkCharacters('订 hotel 在北京')).toBe(4);
  });

  it('sums message contents', () => {
    expect(estimateMessagesTokens([{ role: 'system', content: 'abcdefgh' }, { role: 'user', content: '你好' }])).toBe(4);
  });
});
