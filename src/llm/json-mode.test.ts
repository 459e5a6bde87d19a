import { describe, expect, it } from 'vitest';
import { isJsonMode, messagesFor, responseFormatFor, weakerJsonMode } from './json-mode.js';

const schema = { name: 'intent result', schema: { type: 'object' } };

describe('json modes', () => {
  it('steps down json_schema -> json_object -> prompt -> none', () => {
    expect(weakerJsonMode('json_schema')).toBe('json_object');
    expect(weakerJsonMode('json_object')).toBe('prompt');
    expect(weakerJsonMode('prompt')).toBeUndefined();
    expect(isJsonMode('json_object')).toBe(true);
    expect(isJsonMode('xml')).toBe(false);
  });

  it('builds response_format per mode with a valid schema name', () => {
    expect(responseFormatFor('json_schema', schema)).toEqual({ type: 'json_schema', json_schema: { name: 'intent_result', schema: { type: 'object' }, strict: false } });
    expect(responseFormatFor('json_object', schema)).toEqual({ type: 'json_object' });
    expect(responseFormatFor('prompt', schema)).toBeUndefined();
  });

  it('adds the schema instruction to the system message without touching the input', () => {
    const messages = [{ role: 'system' as const, content: 'Route.' }, { role: 'user' as const, content: 'hi' }];
    expect(messagesFor('json_schema', messages, schema)).toEqual(messages);
    const prompted = messagesFor('prompt', messages, schema);
    expect(prompted[0]!.content).toMatch(/^Route\.\n\nReply with one JSON object only/);
    expect(prompted[0]!.content).toContain('{"type":"object"}');
    expect(messages[0]!.content).toBe('Route.');
    const withoutSystem = messagesFor('json_object', [{ role: 'user', content: 'hi' }], schema);
    expect(withoutSystem.map((message) => message.role)).toEqual(['system', 'user']);
  });
});
