/**
 * Dates in Chinese and English text → `YYYY-MM-DD`, relative to a given
 * "today".
 *
 * Only the local calendar date of `today` is used (`getFullYear`, `getMonth`,
 * `getDate`), and results are built and printed from local date parts, so a
 * date never shifts by a day across time zones or DST: pass a `Date` whose
 * local date is the user's today.
 *
 * Rules:
 * - Full dates: `2026-12-01`, `2026/12/1`, `2026.12.1`, `2026年12月1日`.
 * - Month and day without a year (`12月1日`, `12月1号`, `十二月一日`, `Dec 1`,
 *   `1st December`): the next such date on or after today.
 * - `今天 明天 后天 大后天` (`今晚 明晚` too), `today tomorrow tonight`, `the day after tomorrow`.
 * - Weeks start on Monday. A bare weekday (`周五`, `星期五`, `friday`) is the
 *   next such day, today included (`this friday` too: what is ahead); `本周五`/`这周五`
 *   is the one in the current week (possibly past); `下周五`/`next friday` is the one in the
 *   following week; `下下周五` one week later.
 * - A month or day out of range (`13月40日`, `2026-02-30`) is reported as an
 *   invalid date with the reason, never silently corrected.
 */

import { parseChineseNumber } from './chinese-numerals.js';
import { addLocalDays, formatLocalDate, startOfLocalDay } from './local-date.js';

/** One date expression found in text. */
export interface DateHit {
  start: number;
  end: number;
  raw: string;
  /** `YYYY-MM-DD` when the expression names a real date. */
  value?: string;
  /** Why the expression is not a real date. */
  reason?: string;
}

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
};
const MONTH_PATTERN = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAYS_EN = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const WEEKDAYS_ZH = '一二三四五六日';
const CN_NUMBER = '[零〇一二两三四五六七八九十]{1,3}';

interface Recognizer {
  pattern: RegExp;
  resolve: (match: RegExpMatchArray, today: Date) => { value?: string; reason?: string };
}

const RECOGNIZERS: readonly Recognizer[] = [
  {
    pattern: /(?<!\d)(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})(?!\d)\s*[日号]?/g,
    resolve: (match) => calendarDate(Number(match[1]), Number(match[2]), Number(match[3])),
  },
  {
    pattern: new RegExp(`(?<![\\d年])(\\d{1,2}|${CN_NUMBER})\\s*月\\s*(\\d{1,2}|${CN_NUMBER})\\s*[日号]`, 'g'),
    resolve: (match, today) => upcomingDate(parseChineseNumber(match[1]!) ?? NaN, parseChineseNumber(match[2]!) ?? NaN, today),
  },
  {
    pattern: new RegExp(`\\b${MONTH_PATTERN}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s*(\\d{4})\\b)?`, 'gi'),
    resolve: (match, today) => monthNameDate(match[1]!, Number(match[2]), match[3], today),
  },
  {
    pattern: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_PATTERN}\\b\\.?(?:,?\\s*(\\d{4})\\b)?`, 'gi'),
    resolve: (match, today) => monthNameDate(match[2]!, Number(match[1]), match[3], today),
  },
  {
    pattern: /大后天|后天|明天|明日|明晚|今天|今日|今晚|\b(?:the\s+)?day\s+after\s+tomorrow\b|\btomorrow\b|\btoday\b|\btonight\b/gi,
    resolve: (match, today) => ({ value: formatLocalDate(addLocalDays(today, relativeOffset(match[0].toLowerCase()))) }),
  },
  {
    pattern: /(下下|下|本|这)?(?:个)?(?:周|星期|礼拜)([一二三四五六日天1-7])/g,
    resolve: (match, today) => {
      const target = match[2] === '天' ? 6 : /\d/.test(match[2]!) ? Number(match[2]) - 1 : WEEKDAYS_ZH.indexOf(match[2]!);
      const week = match[1] === '下下' ? 2 : match[1] === '下' ? 1 : match[1] ? 0 : undefined;
      return { value: formatLocalDate(weekdayDate(today, target, week)) };
    },
  },
  {
    pattern: /\b(?:(next|this|coming)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/gi,
    resolve: (match, today) => {
      const qualifier = match[1]?.toLowerCase();
      // "this friday" said after this week's friday is the coming one (English speaks of what is ahead).
      const week = qualifier === 'next' ? 1 : undefined;
      return { value: formatLocalDate(weekdayDate(today, WEEKDAYS_EN.indexOf(match[2]!.toLowerCase()), week)) };
    },
  },
];

/**
 * Every date expression in the text, in order; where two overlap the longer
 * wins ("大后天" over "后天", "下周一" over "周一").
 */
export function findDates(text: string, today: Date): DateHit[] {
  const found: DateHit[] = [];
  for (const recognizer of RECOGNIZERS) {
    for (const match of text.matchAll(recognizer.pattern)) {
      const raw = match[0].trim();
      if (raw.length === 0) continue;
      const start = match.index + match[0].indexOf(raw);
      found.push({ start, end: start + raw.length, raw, ...recognizer.resolve(match, today) });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: DateHit[] = [];
  for (const hit of found) {
    const overlapping = kept.findIndex((other) => hit.start < other.end && other.start < hit.end);
    if (overlapping === -1) kept.push(hit);
    else if (hit.end - hit.start > kept[overlapping]!.end - kept[overlapping]!.start) kept[overlapping] = hit;
  }
  return kept;
}


function relativeOffset(word: string): number {
  if (word === '大后天') return 3;
  if (word === '后天' || word.includes('after')) return 2;
  if (word === '明天' || word === '明日' || word === '明晚' || word === 'tomorrow') return 1;
  return 0;
}

/** Monday = 0 … Sunday = 6. `week` undefined: next such day, today included. */
function weekdayDate(today: Date, target: number, week: number | undefined): Date {
  const current = (today.getDay() + 6) % 7;
  if (week === undefined) return addLocalDays(today, (target - current + 7) % 7);
  return addLocalDays(today, target - current + 7 * week);
}

function daysInMonth(year: number, month: number): number {
  return new Date(year, month, 0).getDate();
}

function calendarDate(year: number, month: number, day: number): { value?: string; reason?: string } {
  if (!Number.isInteger(month) || month < 1 || month > 12) return { reason: `month ${month} is not between 1 and 12` };
  const last = daysInMonth(year, month);
  if (!Number.isInteger(day) || day < 1 || day > last) return { reason: `day ${day} is not between 1 and ${last} for ${year}-${String(month).padStart(2, '0')}` };
  const date = new Date(year, month - 1, day);
  date.setFullYear(year);
  return { value: formatLocalDate(date) };
}

function upcomingDate(month: number, day: number, today: Date): { value?: string; reason?: string } {
  const year = today.getFullYear();
  if (!Number.isInteger(month) || month < 1 || month > 12) return { reason: `month ${month} is not between 1 and 12` };
  if (!Number.isInteger(day) || day < 1 || day > 31) return { reason: `day ${day} is not between 1 and 31` };
  const thisYear = calendarDate(year, month, day);
  if (thisYear.value && new Date(year, month - 1, day) >= startOfLocalDay(today)) return thisYear;
  const nextYear = calendarDate(year + 1, month, day);
  // 2月29日 asked in a leap year after Feb 29: report this year's reason only if next year also fails.
  return nextYear.value ? nextYear : thisYear.value ? thisYear : nextYear;
}

function monthNameDate(monthName: string, day: number, year: string | undefined, today: Date): { value?: string; reason?: string } {
  const month = MONTHS[monthName.toLowerCase().slice(0, 3)]!;
  return year ? calendarDate(Number(year), month, day) : upcomingDate(month, day, today);
}
