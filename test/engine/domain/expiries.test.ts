import t from 'tap';
import {
  EXPIRY_HOUR_UTC, daysInMonth, expiryOfDate, isExpiryTime, isMonthEndFriday, isValidDate, lastFridayExpiry,
  listingExpiries, nextDailyExpiry,
} from '../../../engine/domain/expiries.ts';
import { prng } from './prng.ts';

const at = (iso: string): number => Date.parse(iso) / 1000;
const iso = (sec: number): string => new Date(sec * 1000).toISOString().slice(0, 10);

t.test('expiryOfDate and validity', async (t) => {
  t.equal(EXPIRY_HOUR_UTC, 8);
  t.equal(expiryOfDate(2026, 1, 1), 1767254400, 'BTC-01JAN26 expiry');
  t.equal(expiryOfDate(2024, 2, 29), at('2024-02-29T08:00:00Z'), 'leap day');
  t.equal(expiryOfDate(2000, 2, 29), at('2000-02-29T08:00:00Z'), '2000 is a leap year');
  t.throws(() => expiryOfDate(2023, 2, 29), RangeError);
  t.throws(() => expiryOfDate(2100, 2, 29), RangeError, '2100 is not');
  t.throws(() => expiryOfDate(2026, 4, 31), RangeError);
  t.throws(() => expiryOfDate(2026, 13, 1), RangeError);
  t.throws(() => expiryOfDate(2026, 0, 1), RangeError);
  t.throws(() => expiryOfDate(2026, 1, 0), RangeError);
  t.throws(() => expiryOfDate(2026, 1.5, 1), RangeError);
  t.ok(isValidDate(2028, 2, 29));
  t.notOk(isValidDate(2027, 2, 29));
  t.equal(daysInMonth(2026, 2), 28);
  t.equal(daysInMonth(2024, 2), 29);
  t.equal(daysInMonth(2026, 12), 31);
});

t.test('isExpiryTime', async (t) => {
  t.ok(isExpiryTime(1767254400));
  t.notOk(isExpiryTime(1767254401));
  t.notOk(isExpiryTime(1767254399));
  t.notOk(isExpiryTime(1767254400.5));
  t.notOk(isExpiryTime(at('2026-01-01T00:00:00Z')));
  t.ok(isExpiryTime(8 * 3600), 'epoch day');
  t.ok(isExpiryTime(-16 * 3600), '1969-12-31T08:00Z');
});

t.test('nextDailyExpiry is strictly after now', async (t) => {
  t.equal(nextDailyExpiry(at('2026-03-10T07:59:59Z')), at('2026-03-10T08:00:00Z'));
  t.equal(nextDailyExpiry(at('2026-03-10T08:00:00Z')), at('2026-03-11T08:00:00Z'));
  t.equal(nextDailyExpiry(at('2026-03-10T08:00:01Z')), at('2026-03-11T08:00:00Z'));
  t.equal(nextDailyExpiry(at('2026-03-10T08:00:00Z') - 0.001), at('2026-03-10T08:00:00Z'), 'fractional now');
});

t.test('lastFridayExpiry and isMonthEndFriday', async (t) => {
  t.equal(iso(lastFridayExpiry(2026, 1)), '2026-01-30');
  t.equal(iso(lastFridayExpiry(2026, 2)), '2026-02-27');
  t.equal(iso(lastFridayExpiry(2026, 7)), '2026-07-31', 'month ending on a Friday');
  t.equal(iso(lastFridayExpiry(2024, 2)), '2024-02-23');
  t.equal(iso(lastFridayExpiry(2027, 12)), '2027-12-31');
  t.ok(isMonthEndFriday(at('2026-01-30T08:00:00Z')));
  t.notOk(isMonthEndFriday(at('2026-01-23T08:00:00Z')));
  t.notOk(isMonthEndFriday(at('2026-01-30T09:00:00Z')));
});

t.test('listingExpiries around boundaries', async (t) => {
  // Friday 2026-01-30 is the last Friday of January.
  t.same(listingExpiries(at('2026-01-30T07:59:59Z')).map(iso),
    ['2026-01-30', '2026-01-31', '2026-02-06', '2026-02-13', '2026-02-20', '2026-02-27', '2026-03-27']);
  t.same(listingExpiries(at('2026-01-30T08:00:00Z')).map(iso),
    ['2026-01-31', '2026-02-01', '2026-02-06', '2026-02-13', '2026-02-20', '2026-02-27', '2026-03-27', '2026-04-24']);
  // Thursday before a Friday.
  t.same(listingExpiries(at('2026-02-05T08:00:01Z')).map(iso),
    ['2026-02-06', '2026-02-07', '2026-02-13', '2026-02-20', '2026-02-27', '2026-03-27', '2026-04-24']);
  // Year end: Friday 2027-12-31 is both a Friday and the month end.
  t.same(listingExpiries(at('2027-12-30T12:00:00Z')).map(iso),
    ['2027-12-31', '2028-01-01', '2028-01-07', '2028-01-14', '2028-01-21', '2028-01-28', '2028-02-25']);
  // Leap February 2028: last Friday is the 25th; 29th is a Tuesday.
  t.same(listingExpiries(at('2028-02-28T09:00:00Z')).map(iso),
    ['2028-02-29', '2028-03-01', '2028-03-03', '2028-03-10', '2028-03-17', '2028-03-24', '2028-03-31', '2028-04-28', '2028-05-26']);
  for (const e of listingExpiries(at('2026-01-30T08:00:00Z'))) t.ok(isExpiryTime(e));
});

/** Naive reference: walk day by day. */
function reference(now: number): number[] {
  const out = new Set<number>();
  let daily = 0, weekly = 0, monthly = 0;
  for (let day = Math.floor(now / 86400) - 1; monthly < 3 || weekly < 4 || daily < 2; day++) {
    const e = day * 86400 + 8 * 3600;
    if (e <= now) continue;
    const d = new Date(e * 1000);
    if (daily < 2) { out.add(e); daily++; }
    if (d.getUTCDay() === 5) {
      if (weekly < 4) { out.add(e); weekly++; }
      const next = new Date((e + 7 * 86400) * 1000);
      if (next.getUTCMonth() !== d.getUTCMonth() && monthly < 3) { out.add(e); monthly++; }
    }
  }
  return [...out].sort((a, b) => a - b);
}

t.test('listingExpiries matches a day-by-day reference', async (t) => {
  const rnd = prng(5);
  const from = at('2024-01-01T00:00:00Z'), to = at('2031-01-01T00:00:00Z');
  let bad = 0;
  for (let i = 0; i < 3000; i++) {
    let now = Math.floor(from + rnd() * (to - from));
    // A third of the draws sit exactly on, or one second around, an expiry.
    if (i % 3 === 0) now = nextDailyExpiry(now) + (i % 9 === 0 ? 0 : i % 9 === 3 ? -1 : 1);
    const got = listingExpiries(now);
    const want = reference(now);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      bad++;
      if (bad < 3) t.fail(`${new Date(now * 1000).toISOString()}: ${got.map(iso)} vs ${want.map(iso)}`);
    }
  }
  t.equal(bad, 0);
});
