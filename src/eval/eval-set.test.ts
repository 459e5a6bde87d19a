import { describe, expect, it } from 'vitest';
import { parseEvalSet } from './eval-set.js';

const known = new Set(['hotel_agent', 'weather_agent']);

describe('parseEvalSet', () => {
  it('reads queries, agent sets, sessions and inputs; skips blank and comment lines', () => {
    const parsed = parseEvalSet(
      [
        '// travel',
        '{"query":" 帮我订北京的酒店 ","agents":["hotel_agent"],"inputs":{"hotel_agent":{"city":"北京"}}}',
        '',
        '{"query":"上海呢","agents":["weather_agent"],"session":["北京明天天气怎么样"]}',
        '{"query":"tell me a joke","agents":[]}',
      ].join('\n'),
      known,
    );
    expect(parsed).toEqual({
      ok: true,
      cases: [
        { line: 2, query: '帮我订北京的酒店', agents: ['hotel_agent'], session: [], inputs: { hotel_agent: { city: '北京' } } },
        { line: 4, query: '上海呢', agents: ['weather_agent'], session: ['北京明天天气怎么样'], inputs: {} },
        { line: 5, query: 'tell me a joke', agents: [], session: [], inputs: {} },
      ],
      dialogues: [],
    });
  });

  it('names every bad line and what is wrong with it', () => {
    const parsed = parseEvalSet(
      [
        '{"query":"ok","agents":["hotel_agent"]}',
        '{"query":"x","agents":"hotel_agent"}',
        'not json',
        '{"query":"","agents":[]}',
        '{"query":"x","agents":["taxi_agent"]}',
        '{"query":"x","agents":["hotel_agent"],"inputs":{"weather_agent":{"city":"北京"}}}',
        '{"query":"x","agents":[],"session":[1]}',
        '{"query":"x","agents":[],"extra":true}',
        '[1,2]',
      ].join('\n'),
      known,
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const byLine = (line: number) => parsed.issues.filter((issue) => issue.line === line).map((issue) => issue.message).join(' | ');
    expect(parsed.issues.some((issue) => issue.line === 1)).toBe(false);
    expect(byLine(2)).toMatch(/"agents" must be an array/);
    expect(byLine(3)).toMatch(/not valid JSON/);
    expect(byLine(4)).toMatch(/"query" must be a non-empty string/);
    expect(byLine(5)).toMatch(/unknown agent "taxi_agent"/);
    expect(byLine(6)).toMatch(/agent "weather_agent" is not in "agents"/);
    expect(byLine(7)).toMatch(/"session" must be an array of non-empty strings/);
    expect(byLine(8)).toMatch(/unknown field "extra"/);
    expect(byLine(9)).toMatch(/expected a JSON object/);
  });

  it('rejects an empty set', () => {
    expect(parseEvalSet('\n// nothing\n')).toEqual({ ok: false, issues: [{ line: 0, message: 'the set has no lines' }] });
  });
});
