import { describe, expect, it } from 'vitest';
import { createEmotionScorer } from './emotion.js';

describe('createEmotionScorer', () => {
  const scorer = createEmotionScorer();

  it('scores strong words, mild words and emphasis', () => {
    expect(scorer.score('帮我订北京的酒店').score).toBe(0);
    expect(scorer.score('非常感谢！！').score).toBe(0);
    expect(scorer.score('有点失望').score).toBe(1);
    expect(scorer.score('太差劲了').score).toBe(2);
    expect(scorer.score('你们服务太差劲了，气死我了！！')).toEqual({ score: 4.5, words: ['太差劲', '气死我了'] });
    expect(scorer.score('This is RIDICULOUS, I am so angry!!').score).toBe(2 + 1 + 1.5);
  });

  it('caps emphasis at 2', () => {
    expect(scorer.score('真的真的真的真的真的很失望！！！').score).toBe(3);
  });

  it('adds configured words as strong words', () => {
    expect(scorer.score('我要炸了').score).toBe(0);
    expect(scorer.score('我要炸了', { emotionWords: ['我要炸了'] }).score).toBe(2);
  });
});
