import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTakeOnce } from './take-once.js';

describe('createTakeOnce', () => {
  afterEach(() => vi.useRealTimers());

  it('gives a value once, and nothing after its age', () => {
    vi.useFakeTimers();
    const ahead = createTakeOnce<number>(1000);
    ahead.put('a', 1);
    expect(ahead.take('a')).toBe(1);
    expect(ahead.take('a')).toBeUndefined();
    ahead.put('b', 2);
    vi.advanceTimersByTime(1001);
    expect(ahead.take('b')).toBeUndefined();
  });

  it('keeps null as a value, and forgets by key and by prefix', () => {
    const ahead = createTakeOnce<number | null>(1000);
    ahead.put('u1:s1', null);
    ahead.put('u1:s2', 2);
    ahead.put('u2:s1', 3);
    expect(ahead.take('u1:s1')).toBeNull();
    ahead.forgetPrefix('u1:');
    expect(ahead.take('u1:s2')).toBeUndefined();
    ahead.forget('u2:s1');
    expect(ahead.take('u2:s1')).toBeUndefined();
  });
});
