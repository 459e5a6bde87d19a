import { describe, expect, it } from 'vitest';
import { parseEvalSet } from './eval-set.js';
import { checkTurn } from './dialogue-report.js';
import { sampleOf } from './stub-agents.js';

const KNOWN = new Set(['hotel_agent', 'weather_agent']);

describe('dialogue lines of an eval set', () => {
  it('reads dialogue lines beside routing lines, with their optional clock fields', () => {
    const parsed = parseEvalSet(
      [
        '{"query":"北京天气","agents":["weather_agent"]}',
        JSON.stringify({ name: 'held', today: '2026-11-22', dialogue: [{ user: '帮我订北京的酒店，明天入住', expect: { held: ['hotel_agent'], not_called: ['hotel_agent'] } }, { user: '确认', wait_s: 5, new_session: false, expect: { inputs: { hotel_agent: { city: '北京' } } } }] }),
      ].join('\n'),
      KNOWN,
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.cases).toHaveLength(1);
    expect(parsed.dialogues).toEqual([
      {
        line: 2,
        name: 'held',
        today: '2026-11-22',
        turns: [
          { user: '帮我订北京的酒店，明天入住', waitS: 0, newSession: false, expect: { held: ['hotel_agent'], not_called: ['hotel_agent'] } },
          { user: '确认', waitS: 5, newSession: false, expect: { inputs: { hotel_agent: { city: '北京' } } } },
        ],
      },
    ]);
  });

  it('names every problem of a bad dialogue line and runs nothing', () => {
    const parsed = parseEvalSet(
      JSON.stringify({ dialogue: [{ user: '', expect: { agents: ['nope_agent'], asks: { hotel_agent: 'city' }, colour: 1 } }, 'x'], today: '22/11/2026', extra: 1 }),
      KNOWN,
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const messages = parsed.issues.map((issue) => issue.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'unknown field "extra" (a dialogue line has dialogue, name, today)',
        '"today" must be a date YYYY-MM-DD',
        'dialogue[0].user must be a non-empty string',
        'dialogue[0].expect.agents: unknown agent "nope_agent"',
        'dialogue[0].expect.asks.hotel_agent must be an array of keys',
        'dialogue[0].expect: unknown field "colour" (expected agents, inputs, asks, held, not_called)',
        'dialogue[1] must be an object { "user", "expect" }',
      ]),
    );
    expect(parsed.issues.every((issue) => issue.line === 1)).toBe(true);
  });

  it('scores each expectation of a turn against what the turn did', () => {
    const observed = {
      user: '确认',
      agents: ['hotel_agent'],
      calls: [{ agentId: 'hotel_agent', inputs: { city: '上海', check_in_date: '2026-11-23' }, message: '', userId: 'u', sessionId: 's' }],
      asks: {},
      held: [],
      confirmations: [],
      answer: '',
    };
    const checks = checkTurn({ agents: ['hotel_agent'], inputs: { hotel_agent: { city: '北京' } }, held: [], not_called: ['hotel_agent', 'weather_agent'] }, observed, 2);
    expect(checks.map((check) => [check.kind, check.agent, check.pass])).toEqual([
      ['agents', undefined, true],
      ['inputs', 'hotel_agent', false],
      ['held', undefined, true],
      ['not_called', 'hotel_agent', false],
      ['not_called', 'weather_agent', true],
    ]);
  });

  it('stub outputs meet the output_schema they are made from', () => {
    expect(sampleOf({ type: 'object', required: ['hotels'], properties: { hotels: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } } }, day: { type: 'string', format: 'date' } } })).toEqual({
      hotels: [{ name: 'stub-1', price: 1 }],
      day: '2026-01-01',
    });
  });
});
