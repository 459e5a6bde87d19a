/**
 * Calendar dates as the user reads them: the local date of the process
 * (`TZ`), never the UTC date of `toISOString()`, which is a different day for
 * part of every day east or west of Greenwich. Every `YYYY-MM-DD` the product
 * writes or compares (extracted dates, example values, "today" in prompts,
 * plan ids) comes from here, so they agree with each other.
 */

/** `YYYY-MM-DD` of the local calendar date of `date`. */
export function formatLocalDate(date: Date): string {
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${String(date.getFullYear()).padStart(4, '0')}-${month}-${day}`;
}

/** Local midnight of the day of `date`. */
export function startOfLocalDay(date: Date): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

/** Local midnight `days` calendar days after the day of `date` (negative goes back; DST-safe). */
export function addLocalDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}
