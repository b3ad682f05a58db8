/**
 * A preload (`node --import test/support/fakeToday.mjs`) that moves this process's idea of
 * "now" to FAKE_TODAY (Unix ms or an ISO date): `Date.now()` and `new Date()` start there
 * and run on at real speed. Plain JavaScript, so that it loads without tsx (worker threads
 * inherit the preload). Child processes of tests use it to start the real
 * `gateway/main.ts` at a fixed instant; run over the test suite (through NODE_OPTIONS) it
 * shows that no test depends on the day it runs.
 */
const raw = process.env.FAKE_TODAY;
if (raw === undefined || raw === '') throw new Error('fakeToday.mjs: set FAKE_TODAY to Unix ms or an ISO date');
const RealDate = Date;
const target = /^\d+$/.test(raw) ? Number(raw) : RealDate.parse(raw);
if (!Number.isFinite(target)) throw new Error(`fakeToday.mjs: FAKE_TODAY=${raw} is not a date`);
const offset = target - RealDate.now();

class FakeDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }

  static now() {
    return RealDate.now() + offset;
  }
}

globalThis.Date = FakeDate;
