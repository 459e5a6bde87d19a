import { describe, expect, it } from 'vitest';
import { appendTurn } from './memory.js';
import { renderSummary } from './layered-summary.js';
import { emptyMemory, type SessionMemory } from '../state.js';

const turn = (index: number) => ({
  query: `第${index}个问题：北京明天天气怎么样，再帮我看看酒店${'，'.repeat(index % 7)}`,
  rewrittenQuery: `北京明天天气 ${index}`,
  answer: `回答${index}`.repeat(20),
  agents: index % 3 === 0 ? ['hotel_agent'] : ['weather_agent'],
});

describe('layered summary', () => {
  it('keeps the last N turns verbatim and folds older ones incrementally into a bounded summary', () => {
    let memory: SessionMemory = { ...emptyMemory(), known_values: { city: '北京' } };
    const sizes: number[] = [];
    for (let index = 1; index <= 1000; index += 1) {
      memory = { ...memory, ...appendTurn(memory, turn(index), 5) };
      if (index === 10 || index === 100 || index === 1000) sizes.push(renderSummary(memory.summary).length);
    }
    expect(memory.history.map((entry) => entry.rewrittenQuery)).toEqual([996, 997, 998, 999, 1000].map((index) => `北京明天天气 ${index}`));
    expect(memory.summary!.turns).toBe(995);
    expect(memory.summary!.intents).toEqual({ weather_agent: 664, hotel_agent: 331 });
    expect(memory.summary!.requests).toEqual(['北京明天天气 993', '北京明天天气 994', '北京明天天气 995']);
    const text = renderSummary(memory.summary, (id) => (id === 'hotel_agent' ? '酒店服务' : '天气查询'));
    expect(text).toContain('995 earlier turn(s).');
    expect(text).toContain('天气查询 ×664');
    expect(text).toContain('city=北京');
    expect(Math.max(...sizes)).toBeLessThanOrEqual(Math.min(...sizes) * 1.2);
  });

  it('takes the prose summary the model wrote for the turn that leaves, and keeps the last one otherwise', () => {
    let memory: SessionMemory = emptyMemory();
    for (let index = 1; index <= 3; index += 1) memory = { ...memory, ...appendTurn(memory, turn(index), 2, index === 3 ? '用户在查北京的天气。' : undefined) };
    expect(memory.summary!.text).toBe('用户在查北京的天气。');
    memory = { ...memory, ...appendTurn(memory, turn(4), 2) };
    expect(memory.summary!.text).toBe('用户在查北京的天气。');
    expect(memory.summary!.turns).toBe(2);
    expect(renderSummary(undefined)).toBe('');
  });
});
