/**
 * Expiry calendar. Every option expires at 08:00 UTC (interface.md); the venue lists the
 * next 2 daily, the next 4 Friday and the next 3 month-end Friday expiries (api.md). All
 * functions take the time as an argument: the engine never reads a clock.
 */

export const EXPIRY_HOUR_UTC = 8;
export const SECONDS_PER_DAY = 86_400;
const EXPIRY_OFFSET = EXPIRY_HOUR_UTC * 3600;
/** getUTCDay() of a Friday. */
const FRIDAY = 5;

export const LISTING = { daily: 2, weekly: 4, monthly: 3 } as const;

/** True when year/month (1-12)/day is a real calendar date (leap years included). */
export function isValidDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= daysInMonth(year, month);
}

export function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one.
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Unix seconds of 08:00 UTC on a date. Years 0-99 are taken literally (not as 19xx, which
 * is what Date.UTC would do). An impossible date is a caller bug and throws.
 */
export function expiryOfDate(year: number, month: number, day: number): number {
  if (!isValidDate(year, month, day)) throw new RangeError(`expiryOfDate: invalid date ${year}-${month}-${day}`);
  const d = new Date(Date.UTC(2000, month - 1, day, EXPIRY_HOUR_UTC));
  d.setUTCFullYear(year);
  return d.getTime() / 1000;
}

/** UTC calendar date of a Unix time (seconds). */
export function utcDate(sec: number): { year: number; month: number; day: number; weekday: number } {
  const d = new Date(sec * 1000);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay() };
}

/** A whole Unix second at 08:00 UTC. */
export function isExpiryTime(sec: number): boolean {
  return Number.isSafeInteger(sec) && (((sec % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY) === EXPIRY_OFFSET;
}

/** The first 08:00 UTC strictly after `nowSec`. */
export function nextDailyExpiry(nowSec: number): number {
  const today = Math.floor(nowSec / SECONDS_PER_DAY) * SECONDS_PER_DAY + EXPIRY_OFFSET;
  return today > nowSec ? today : today + SECONDS_PER_DAY;
}

/** Friday 08:00 UTC of the last Friday of a month (month 1-12). */
export function lastFridayExpiry(year: number, month: number): number {
  const last = expiryOfDate(year, month, daysInMonth(year, month));
  const weekday = utcDate(last).weekday;
  return last - (((weekday - FRIDAY + 7) % 7) * SECONDS_PER_DAY);
}

/** True for an expiry on the last Friday of its month. */
export function isMonthEndFriday(sec: number): boolean {
  if (!isExpiryTime(sec)) return false;
  const d = utcDate(sec);
  return d.weekday === FRIDAY && lastFridayExpiry(d.year, d.month) === sec;
}

/**
 * The expiries to list at `nowSec`: sorted, unique, all strictly after now. The next 2
 * daily expiries, the next 4 Fridays and the next 3 month-end (last) Fridays. A month-end
 * Friday that is also one of the next 4 Fridays counts once.
 */
export function listingExpiries(nowSec: number): number[] {
  if (!Number.isFinite(nowSec)) throw new RangeError('listingExpiries: now must be finite');
  const out = new Set<number>();
  const first = nextDailyExpiry(nowSec);
  for (let i = 0; i < LISTING.daily; i++) out.add(first + i * SECONDS_PER_DAY);

  const firstWeekday = utcDate(first).weekday;
  const firstFriday = first + (((FRIDAY - firstWeekday + 7) % 7) * SECONDS_PER_DAY);
  for (let i = 0; i < LISTING.weekly; i++) out.add(firstFriday + i * 7 * SECONDS_PER_DAY);

  let { year, month } = utcDate(first);
  let found = 0;
  while (found < LISTING.monthly) {
    const e = lastFridayExpiry(year, month);
    if (e > nowSec) {
      out.add(e);
      found++;
    }
    month++;
    if (month > 12) {
      month = 1;
      year++;
    }
  }
  return [...out].sort((a, b) => a - b);
}
