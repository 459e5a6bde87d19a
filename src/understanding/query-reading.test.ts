import { describe, expect, it } from 'vitest';
import { announcesEarly, hasNoLanguage, readMessage, readingInSession, readTurnQuery, type ReadingContext } from './query-reading.js';

const inSession = (query: string, context: ReadingContext = {}) => readingInSession(readMessage(query), context);

describe('readMessage and readingInSession', () => {
  it('reads a yes/no word followed by more words as a correction while tasks wait', () => {
    expect(inSession('好的，不过改成上海', { openTasks: true })).toMatchObject({ act: 'correction', normalizedQuery: '改成上海', offset: 5 });
    expect(inSession('确认，不过日期改成后天', { openTasks: true })).toMatchObject({ act: 'correction', normalizedQuery: '日期改成后天' });
    expect(inSession('yes, but make it Shanghai', { openTasks: true })).toMatchObject({ act: 'correction', normalizedQuery: 'make it Shanghai', language: 'en' });
  });

  it('leaves other messages whole: no task waits, a lone yes word, or a word that only starts like one', () => {
    expect(readTurnQuery('好的，不过改成上海')).toMatchObject({ act: 'request', normalizedQuery: '好的,不过改成上海' });
    expect(inSession('确认', { openTasks: true })).toMatchObject({ act: 'request', normalizedQuery: '确认' });
    expect(inSession('行李寄存在哪', { openTasks: true })).toMatchObject({ act: 'request' });
    expect(inSession('对不起我说错了', { openTasks: true })).toMatchObject({ act: 'request' });
  });

  it('answers an id-only message in the session language', () => {
    expect(hasNoLanguage('A1001')).toBe(true);
    expect(hasNoLanguage('order A1001')).toBe(false);
    expect(inSession('A1001', { sessionLanguage: 'zh' }).language).toBe('zh');
    expect(inSession('A1001', { sessionLanguage: 'en' }).language).toBe('en');
    expect(inSession('check order A1001', { sessionLanguage: 'zh' }).language).toBe('en');
  });

  it('splits the clauses once, with where each starts', () => {
    expect(readTurnQuery('我要退款，订单 A1001').clauses).toEqual([
      { text: '我要退款', start: 0, requestWords: [] },
      { text: '订单 A1001', start: 5, requestWords: [] },
    ]);
  });

  it('finds the request words of every agent of the registry once, per clause', () => {
    const card = (id: string, keywords: string[], name: string) => ({ id, keywords, name, names: {} });
    const byId = new Map([
      ['weather_agent', card('weather_agent', ['天气', 'weather'], 'Weather')],
      ['hotel_agent', card('hotel_agent', ['酒店', 'hotel'], 'Hotel')],
      ['flight_agent', card('flight_agent', ['flight'], 'Flights')],
    ]);
    expect(readTurnQuery('查北京天气，再订两晚酒店', { byId }).clauses).toEqual([
      { text: '查北京天气', start: 0, requestWords: [{ agentId: 'weather_agent', start: 3, end: 5 }] },
      { text: '订两晚酒店', start: 7, requestWords: [{ agentId: 'hotel_agent', start: 3, end: 5 }] },
    ]);
    // English words whole, a plural allowed: "hotels" names the hotel, "weatherman" no weather.
    expect(readTurnQuery('hotels for the weatherman', { byId }).clauses[0]!.requestWords).toEqual([{ agentId: 'hotel_agent', start: 0, end: 5 }]);
    expect(Object.isFrozen(readTurnQuery('weather', { byId }).clauses[0]!.requestWords)).toBe(true);
  });

  it('reads the reply word once: a lone yes/no/cancel word, and a correction whose rest is one', () => {
    expect(readMessage('好的').asRequest.replyWord).toBe('yes');
    expect(readMessage('取消').asRequest.replyWord).toBe('cancel');
    expect(readMessage('好的，确认').asCorrection?.replyWord).toBe('yes');
    expect(readMessage('好的，不过改成上海').asCorrection?.replyWord).toBeNull();
  });

  it('is frozen, and the first frame leaves early only for a request in words of a language', () => {
    const message = readMessage('帮我查北京天气，再订酒店');
    expect(Object.isFrozen(message) && Object.isFrozen(message.asRequest) && Object.isFrozen(message.asRequest.clauses)).toBe(true);
    expect(announcesEarly(message)).toBe(true);
    expect(announcesEarly(readMessage('A1001'))).toBe(false);
    expect(announcesEarly(readMessage('好的'))).toBe(false);
    expect(announcesEarly(readMessage('  '))).toBe(false);
  });

  it('chooses without reading again: the same parts, in the session language only when the message has none', () => {
    const message = readMessage('好的，不过改成上海');
    expect(readingInSession(message, { openTasks: true })).toBe(message.asCorrection);
    expect(readingInSession(message, { sessionLanguage: 'en' })).toBe(message.asRequest);
    const id = readMessage('A1001');
    const inChinese = readingInSession(id, { sessionLanguage: 'zh' });
    expect(inChinese.language).toBe('zh');
    expect(inChinese.clauses).toBe(id.asRequest.clauses);
  });
});
