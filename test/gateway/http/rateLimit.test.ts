/**
 * The limiter alone, on a fake clock: every group and tier of the default table lets
 * exactly N requests through in a minute and refuses the N+1-th; tokens come back at
 * window / N; keys are separate; memory stays bounded.
 */
import t from 'tap';
import type { RateIdentity } from '../../../gateway/http/auth.ts';
import { createRateLimiter, defaultRateLimits, type Tier } from '../../../gateway/http/rateLimit.ts';
import { rateLimitGroups, type RateLimitGroup } from '../../../gateway/http/route.ts';
import { fakeClock } from './support.ts';

const wallets: Record<Tier, string> = { 1: '0x' + '1'.repeat(40), 2: '0x' + '2'.repeat(40), 3: '0x' + '3'.repeat(40) };
const tierOf = (w: string): Tier => (w === wallets[3] ? 3 : w === wallets[2] ? 2 : 1);

function drain(take: () => boolean): number {
  let n = 0;
  while (take()) if (++n > 100_000) throw new Error('no limit');
  return n;
}

t.test('the default table: N pass at one instant, the N+1-th is refused', async (t) => {
  t.same(defaultRateLimits.markets, { anonymous: 600, tier1: 300, tier2: 600, tier3: 1000 });
  t.same(defaultRateLimits.orders, { anonymous: 600, tier1: 600, tier2: 1200, tier3: 2400 });
  t.same(defaultRateLimits.account, defaultRateLimits.orders);
  t.equal(defaultRateLimits.helpers.tier3, 120);
  t.equal(defaultRateLimits.auth.anonymous, 20);
  t.equal(defaultRateLimits.platform.tier1, 600);
  for (const group of rateLimitGroups) {
    const clock = fakeClock();
    const limiter = createRateLimiter({ clock: clock.read, tierOf });
    const identities: Array<[keyof typeof defaultRateLimits.markets, RateIdentity]> = [
      ['anonymous', { kind: 'ip', ip: '10.0.0.1' }],
      ['tier1', { kind: 'wallet', address: wallets[1] }],
      ['tier2', { kind: 'wallet', address: wallets[2] }],
      ['tier3', { kind: 'wallet', address: wallets[3] }],
    ];
    for (const [column, identity] of identities) {
      const expected = defaultRateLimits[group as RateLimitGroup][column];
      if (expected === null) {
        t.equal(limiter.take(group, identity), null, `${group} ${column} is unlimited`);
        continue;
      }
      const passed = drain(() => limiter.take(group, identity)!.allowed);
      t.equal(passed, expected, `${group} ${column}: ${expected} per minute`);
    }
  }
});

t.test('tokens come back one per window/N; remaining and reset are exact', async (t) => {
  const clock = fakeClock(1_000_000);
  const limiter = createRateLimiter({ clock: clock.read, limits: { auth: { anonymous: 20 } } });
  const ip: RateIdentity = { kind: 'ip', ip: '1.2.3.4' };
  const first = limiter.take('auth', ip)!;
  t.same(first, { allowed: true, limit: 20, remaining: 19, resetAt: 1_003_000, retryAt: 1_000_000 });
  for (let i = 0; i < 18; i++) limiter.take('auth', ip);
  const last = limiter.take('auth', ip)!;
  t.same(last, { allowed: true, limit: 20, remaining: 0, resetAt: 1_060_000, retryAt: 1_003_000 });
  const refused = limiter.take('auth', ip)!;
  t.same(refused, { allowed: false, limit: 20, remaining: 0, resetAt: 1_060_000, retryAt: 1_003_000 });
  clock.now += 2_999;
  t.equal(limiter.take('auth', ip)!.allowed, false, 'not before window/N');
  clock.now += 1;
  const back = limiter.take('auth', ip)!;
  t.equal(back.allowed, true, 'one token back after 3 s');
  t.equal(back.remaining, 0);
  t.equal(limiter.take('auth', ip)!.allowed, false);
  clock.now += 60_000;
  t.equal(drain(() => limiter.take('auth', ip)!.allowed), 20, 'a full bucket after a quiet minute');
});

t.test('in any minute at most N + refill: a steady caller at the limit rate is never refused', async (t) => {
  const clock = fakeClock(0);
  const limiter = createRateLimiter({ clock: clock.read, limits: { helpers: { anonymous: 120 } } });
  const ip: RateIdentity = { kind: 'ip', ip: '9.9.9.9' };
  let refused = 0;
  for (let i = 0; i < 1000; i++) {
    if (!limiter.take('helpers', ip)!.allowed) refused++;
    clock.now += 500;
  }
  t.equal(refused, 0);
});

t.test('keys: per group, per identity; addresses case-insensitive', async (t) => {
  const clock = fakeClock();
  const limiter = createRateLimiter({ clock: clock.read, limits: { helpers: { anonymous: 2, tier1: 2 }, auth: { anonymous: 2 } } });
  const ipA: RateIdentity = { kind: 'ip', ip: 'a' };
  drain(() => limiter.take('helpers', ipA)!.allowed);
  t.equal(limiter.take('helpers', ipA)!.allowed, false);
  t.equal(limiter.take('auth', ipA)!.allowed, true, 'other group, own bucket');
  t.equal(limiter.take('helpers', { kind: 'ip', ip: 'b' })!.allowed, true, 'other IP, own bucket');
  const w = '0xAbCd000000000000000000000000000000000000';
  drain(() => limiter.take('helpers', { kind: 'wallet', address: w })!.allowed);
  t.equal(limiter.take('helpers', { kind: 'wallet', address: w.toLowerCase() })!.allowed, false, 'same wallet in another case');
  t.equal(limiter.take('helpers', { kind: 'wallet', address: '0xAbCd000000000000000000000000000000000001' })!.allowed, true, 'another wallet has its own bucket');
});

t.test('memory: idle keys are swept; the hard bound holds', async (t) => {
  const clock = fakeClock();
  const limiter = createRateLimiter({ clock: clock.read, maxKeys: 1000 });
  for (let i = 0; i < 5000; i++) limiter.take('markets', { kind: 'ip', ip: `10.0.${i >> 8}.${i & 255}` });
  t.ok(limiter.size() <= 1000, `bounded: ${limiter.size()}`);
  clock.now += 61_000;
  for (let i = 0; i < 3000; i++) limiter.take('markets', { kind: 'ip', ip: 'steady' });
  t.ok(limiter.size() <= 2, `idle keys evicted: ${limiter.size()} left`);
});

t.test('configuration: overrides merge over defaults; bad values throw', async (t) => {
  const clock = fakeClock();
  const limiter = createRateLimiter({ clock: clock.read, limits: { markets: { anonymous: 3 }, health: { anonymous: 1 } }, windowMs: 1000 });
  t.equal(limiter.limitFor('markets', { kind: 'ip', ip: 'x' }), 3);
  t.equal(limiter.limitFor('markets', { kind: 'wallet', address: '0x1' }), 300, 'untouched columns keep defaults');
  t.equal(limiter.limitFor('health', { kind: 'ip', ip: 'x' }), 1);
  t.equal(drain(() => limiter.take('markets', { kind: 'ip', ip: 'x' })!.allowed), 3);
  clock.now += 1000;
  t.equal(drain(() => limiter.take('markets', { kind: 'ip', ip: 'x' })!.allowed), 3, 'window of 1 s');
  t.throws(() => createRateLimiter({ clock: clock.read, limits: { auth: { anonymous: 0 } } }));
  t.throws(() => createRateLimiter({ clock: clock.read, limits: { auth: { anonymous: 1.5 } } }));
  t.throws(() => createRateLimiter({ clock: clock.read, windowMs: 0 }));
});

t.test('limits that do not divide the window still allow exactly N, at any clock value', async (t) => {
  // At Unix-epoch magnitudes a double resolves ~0.0002 ms: sums of 60000/9 used to drift past the slack (8 of 9).
  for (const start of [1_234_567, Date.UTC(2026, 0, 5, 12, 0, 0), Date.UTC(2100, 0, 1)]) {
    for (const n of [3, 7, 9, 11, 13, 333, 997, 2399]) {
      const clock = fakeClock(start);
      const limiter = createRateLimiter({ clock: clock.read, limits: { platform: { anonymous: n } } });
      const ip: RateIdentity = { kind: 'ip', ip: 'z' };
      t.equal(drain(() => limiter.take('platform', ip)!.allowed), n, `limit ${n} at ${start}`);
      const refused = limiter.take('platform', ip)!;
      t.equal(refused.retryAt, start + Math.ceil(60_000 / n), `limit ${n} at ${start}: one token back after window / N`);
      clock.now = refused.retryAt - 1;
      t.equal(limiter.take('platform', ip)!.allowed, false, 'not a millisecond before');
      clock.now = refused.retryAt;
      t.equal(limiter.take('platform', ip)!.allowed, true, 'at retryAt');
    }
  }
});

t.test("a wallet's tier is looked up only when the group's tiers differ", async (t) => {
  const looked: string[] = [];
  const limiter = createRateLimiter({ clock: fakeClock().read, tierOf: (w) => (looked.push(w), tierOf(w)), limits: { orders: { tier1: null, tier2: null, tier3: null } } });
  const wallet: RateIdentity = { kind: 'wallet', address: wallets[3] };
  t.equal(limiter.take('orders', wallet), null, 'unlimited for every tier');
  t.equal(limiter.take('helpers', wallet)!.limit, 120, 'one limit for every tier');
  t.same(looked, []);
  t.equal(limiter.take('markets', wallet)!.limit, 1000, 'tiers differ: the tier decides');
  t.same(looked, [wallets[3]]);
});

/** Requests `who` gets through at the current instant, with other callers' requests between its own. */
function burstAmong(limiter: ReturnType<typeof createRateLimiter>, who: RateIdentity, others: (i: number) => RateIdentity | null, tries = 100): number {
  let passed = 0;
  for (let i = 0; i < tries; i++) {
    if (limiter.take('auth', who)!.allowed) passed++;
    const other = others(i);
    if (other !== null) limiter.take('auth', other);
  }
  return passed;
}

t.test('refill is clamped: a key idle for 10 minutes among 1,000+ buckets gets its limit, swept or not', async (t) => {
  const limits = { auth: { anonymous: 20 } };
  const me: RateIdentity = { kind: 'ip', ip: 'me' };
  const other = (i: number): RateIdentity => ({ kind: 'ip', ip: `10.1.${i >> 8}.${i & 255}` });
  for (const order of ['me first', 'me last'] as const) {
    const clock = fakeClock(1_000_000);
    const limiter = createRateLimiter({ clock: clock.read, limits });
    if (order === 'me first') t.equal(drain(() => limiter.take('auth', me)!.allowed), 20);
    for (let i = 0; i < 1500; i++) limiter.take('auth', other(i));
    if (order === 'me last') t.equal(drain(() => limiter.take('auth', me)!.allowed), 20);
    t.ok(limiter.size() > 1000, `${order}: ${limiter.size()} buckets held`);
    clock.now += 10 * 60_000;
    // The others come back at the same instant, so the sweep has not had time to pass over every idle key.
    t.equal(burstAmong(limiter, me, (i) => other(i)), 20, `${order}: exactly the limit at one instant`);
    clock.now += 2_999;
    t.equal(limiter.take('auth', me)!.allowed, false, 'no token before window / N');
    clock.now += 1;
    t.equal(limiter.take('auth', me)!.allowed, true, 'one token back after window / N');
    t.equal(limiter.take('auth', me)!.allowed, false, 'and only one');
  }
});

t.test('the memory bound never hands the key being limited a second bucket', async (t) => {
  // 1,001 buckets held at most; the bound is reached while `me` is refused. Dropping the
  // bucket inserted first (the old policy) gave `me` a full bucket again, and again: 60
  // requests at one instant against a limit of 20 (32 when the bound is reached mid-burst).
  const clock = fakeClock(1_000_000);
  const limiter = createRateLimiter({ clock: clock.read, limits: { auth: { anonymous: 20 } }, maxKeys: 1001 });
  const me: RateIdentity = { kind: 'ip', ip: 'me' };
  const caller = (i: number): RateIdentity => ({ kind: 'ip', ip: `10.2.${i >> 8}.${i & 255}` });
  let passed = drain(() => limiter.take('auth', me)!.allowed);
  for (let i = 0; i < 1000; i++) limiter.take('auth', caller(i));
  t.equal(limiter.size(), 1001, 'the bound is reached');
  passed += burstAmong(limiter, me, (i) => caller(1000 + i), 1500);
  t.equal(passed, 20, 'still 20 at this instant while 1,500 new callers came and the bound held');
  t.equal(limiter.size(), 1001);
  // Mid-burst: the bound is reached after 11 of `me`'s requests.
  const clock2 = fakeClock(5_000_000);
  const limiter2 = createRateLimiter({ clock: clock2.read, limits: { auth: { anonymous: 20 } }, maxKeys: 1001 });
  let passed2 = 0;
  for (let i = 0; i < 11; i++) if (limiter2.take('auth', me)!.allowed) passed2++;
  for (let i = 0; i < 1000; i++) limiter2.take('auth', caller(i));
  passed2 += burstAmong(limiter2, me, (i) => caller(1000 + i), 200);
  t.equal(passed2, 20, 'mid-burst too');
  t.equal(limiter2.size(), 1001, 'bounded');
});
