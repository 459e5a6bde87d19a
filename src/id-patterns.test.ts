import { describe, expect, it } from 'vitest';
import { createChatRequestValidator } from './http/chat-request.js';
import { ID_RULES, isValidId } from './id-patterns.js';

describe('id patterns', () => {
  it.each([
    ['session_id', 's1', true],
    ['session_id', 'a'.repeat(128), true],
    ['session_id', 'a'.repeat(129), false],
    ['session_id', 'has space', false],
    ['session_id', 'a@b', false],
    ['user_id', 'name@example.com', true],
    ['user_id', 'tenant/user', false],
    ['user_id', '', false],
    ['task_id', 't'.repeat(200), true],
    ['task_id', 't'.repeat(201), false],
    ['trace_id', 'trace-1:2', true],
    ['idempotency_key', 'key!#~', true],
    ['idempotency_key', 'key with space', false],
    ['tenant', 'acme.eu-1', true],
    ['tenant', 'acme:eu', false],
  ] as const)('%s %j → %s', (kind, value, valid) => {
    expect(isValidId(kind, value)).toBe(valid);
  });

  it('refuses what is not a string', () => {
    expect(isValidId('session_id', 42)).toBe(false);
    expect(isValidId('user_id', undefined)).toBe(false);
  });

  it('keep the pattern and the maximum length in step', () => {
    for (const [kind, rule] of Object.entries(ID_RULES)) {
      expect(isValidId(kind as keyof typeof ID_RULES, 'a'.repeat(rule.maxLength)), kind).toBe(true);
      expect(isValidId(kind as keyof typeof ID_RULES, 'a'.repeat(rule.maxLength + 1)), kind).toBe(false);
    }
  });

  it('are what the chat body validator applies, with the rule in the message', () => {
    const validate = createChatRequestValidator();
    expect(validate({ query: 'hi', user_id: 'u/1' })).toEqual({ ok: false, field: 'user_id', message: `user_id may only contain ${ID_RULES.user_id.allowed}` });
    expect(validate({ query: 'hi', user_id: 'u1', session_id: 's 1' })).toEqual({ ok: false, field: 'session_id', message: `session_id may only contain ${ID_RULES.session_id.allowed}` });
    expect(validate({ user_id: 'u1', confirm: ['bad id'] })).toMatchObject({ ok: false, field: 'confirm' });
    expect(validate({ query: 'hi', user_id: 'u1', session_id: 's.1:2' })).toMatchObject({ ok: true, value: { sessionId: 's.1:2' } });
  });
});
