import { describe, expect, it } from 'vitest';
import { hasNoLanguage, readTurnQuery } from './query-reading.js';

describe('readTurnQuery', () => {
  it('reads a yes/no word followed by more words as a correction while tasks wait', () => {
    expect(readTurnQuery('好的，不过改成上海', { openTasks: true })).toMatchObject({ act: 'correction', normalizedQuery: '改成上海', offset: 5 });
    expect(readTurnQuery('确认，不过日期改成后天', { openTasks: true })).toMatchObject({ act: 'correction', normalizedQuery: '日期改成后天' });
    expect(readTurnQuery('yes, but make it Shanghai', { openTasks: true })).toMatchObject({ act: 'correction', normalizedQuery: 'make it Shanghai', language: 'en' });
  });

  it('leaves other messages whole: no task waits, a lone yes word, or a word that only starts like one', () => {
    expect(readTurnQuery('好的，不过改成上海')).toMatchObject({ act: 'request', normalizedQuery: '好的,不过改成上海' });
    expect(readTurnQuery('确认', { openTasks: true })).toMatchObject({ act: 'request', normalizedQuery: '确认' });
    expect(readTurnQuery('行李寄存在哪', { openTasks: true })).toMatchObject({ act: 'request' });
    expect(readTurnQuery('对不起我说错了', { openTasks: true })).toMatchObject({ act: 'request' });
  });

  it('answers an id-only message in the session language', () => {
    expect(hasNoLanguage('A1001')).toBe(true);
    expect(hasNoLanguage('order A1001')).toBe(false);
    expect(readTurnQuery('A1001', { sessionLanguage: 'zh' }).language).toBe('zh');
    expect(readTurnQuery('A1001', { sessionLanguage: 'en' }).language).toBe('en');
    expect(readTurnQuery('check order A1001', { sessionLanguage: 'zh' }).language).toBe('en');
  });

  it('splits the clauses once, with where each starts', () => {
    expect(readTurnQuery('我要退款，订单 A1001').clauses).toEqual([
      { text: '我要退款', start: 0 },
      { text: '订单 A1001', start: 5 },
    ]);
  });
});
