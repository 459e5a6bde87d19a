import { describe, expect, it } from 'vitest';
import { addLocalDays, formatLocalDate, startOfLocalDay } from './local-date.js';

describe('local dates', () => {
  it('formats the local calendar day, late in the evening included', () => {
    expect(formatLocalDate(new Date(2026, 0, 5, 23, 59, 59))).toBe('2026-01-05');
    expect(formatLocalDate(new Date(2026, 11, 31, 0, 0, 0))).toBe('2026-12-31');
    const early = new Date(2026, 0, 1);
    early.setFullYear(812);
    expect(formatLocalDate(early)).toBe('0812-01-01');
  });

  it('adds calendar days across month and year ends, to local midnight', () => {
    const evening = new Date(2026, 11, 31, 22, 15);
    expect(formatLocalDate(addLocalDays(evening, 1))).toBe('2027-01-01');
    expect(formatLocalDate(addLocalDays(new Date(2028, 1, 28, 12), 1))).toBe('2028-02-29');
    expect(formatLocalDate(addLocalDays(new Date(2026, 2, 1, 8), -1))).toBe('2026-02-28');
    expect(addLocalDays(evening, 1).getHours()).toBe(0);
    expect(startOfLocalDay(evening).getTime()).toBe(new Date(2026, 11, 31).getTime());
  });
});
