/**
 * A portfolio event's figures in doubles (engine/risk/portfolioFigures.ts) with the bigint
 * formula as fallback, and the health ratio the converter adds (engine/wire.ts): equal to the
 * account actor's bigint view (`AccountActor.view`, written out here as the reference) to the
 * unit, on both sides of 2^53 - 1: each bound, and seeded requirements from small to far
 * beyond it with both paths taken. A figure beyond the bound is a bigint, never a rounded double.
 */
import t from 'tap';
import type { Cash } from '../../../engine/events.ts';
import type { Requirement } from '../../../engine/risk/marginAccount.ts';
import { cashOf, ceilRateInDoubles, portfolioFigures, portfolioFiguresInBigint, type PortfolioFigures } from '../../../engine/risk/portfolioFigures.ts';
import { cashBig, healthRatioOf } from '../../../engine/wire.ts';
import { UINT256_MAX } from '../../../engine/domain/fixed.ts';
import { rng } from '../../persistence/fixtures/rng.ts';

const WAD = 10n ** 18n;
const SAFE = 2n ** 53n - 1n;
const RATE = (8n * WAD) / 10n; // the default maintenance rate

/** The account actor's view (engine/actors/accounts.ts `view`) and the event's cap, in bigint. */
function reference(r: Requirement, rate: bigint, own: bigint) {
  const mm = (r.initialMargin * rate + WAD - 1n) / WAD;
  const healthRatio = mm === 0n ? (r.equity >= 0n ? UINT256_MAX : 0n) : (r.equity * WAD) / mm;
  const free = r.equity - r.initialMarginWithOrders;
  const mw = free <= 0n ? 0n : free < r.deposit ? free : r.deposit > 0n ? r.deposit : 0n;
  const ownPos = own > 0n ? own : 0n;
  return { deposit: r.deposit, unrealizedPnl: r.unrealizedPnl, equity: r.equity, initialMargin: r.initialMargin, initialMarginWithOrders: r.initialMarginWithOrders, maintenanceMargin: mm, healthRatio, isHealthy: healthRatio >= WAD, maxWithdraw: mw < ownPos ? mw : ownPos, positionCount: r.positionCount };
}

const scratch = (): PortfolioFigures => ({ deposit: 0, unrealizedPnl: 0, equity: 0, initialMargin: 0, initialMarginWithOrders: 0, maintenanceMargin: 0, isHealthy: true, maxWithdraw: 0, positionCount: 0 });

/** A figure is canonical Cash: a double exactly when within the bound. */
const canonical = (v: Cash): boolean => (typeof v === 'number' ? Number.isSafeInteger(v) : v > SAFE || v < -SAFE);

/**
 * Whether the figures are computed in doubles (every input within the bound, the maintenance
 * margin's product exact, free equity within the bound): the path is not visible in the result
 * (the fallback gives doubles too when its results fit), so the tests predict it to count both.
 */
function inDoubles(r: Requirement, own: bigint, rate: bigint): boolean {
  const within = (v: bigint) => v <= SAFE && v >= -SAFE;
  return [r.deposit, r.unrealizedPnl, r.equity, r.initialMargin, r.initialMarginWithOrders, own, r.equity - r.initialMarginWithOrders].every(within) && ceilRateInDoubles(Number(r.initialMargin), rate) >= 0;
}

/** The event's figures (the dispatching function, and the bigint formulas alone) in wire form, and whether every figure is canonical Cash. */
function figuresOf(r: Requirement, own: bigint, rate = RATE) {
  const ownN = own <= SAFE && own >= -SAFE ? Number(own) : NaN;
  const wireOf = (f: PortfolioFigures) => ({
    deposit: cashBig(f.deposit),
    unrealizedPnl: cashBig(f.unrealizedPnl),
    equity: cashBig(f.equity),
    initialMargin: cashBig(f.initialMargin),
    initialMarginWithOrders: cashBig(f.initialMarginWithOrders),
    maintenanceMargin: cashBig(f.maintenanceMargin),
    healthRatio: healthRatioOf(cashBig(f.equity), cashBig(f.maintenanceMargin)),
    isHealthy: f.isHealthy,
    maxWithdraw: cashBig(f.maxWithdraw),
    positionCount: f.positionCount,
  });
  const f = portfolioFigures(scratch(), r, rate, ownN, ownN === ownN ? null : own);
  const cash = [f.deposit, f.unrealizedPnl, f.equity, f.initialMargin, f.initialMarginWithOrders, f.maintenanceMargin, f.maxWithdraw];
  return { inDoubles: inDoubles(r, own, rate), canonical: cash.every(canonical), wire: wireOf(f), bigint: wireOf(portfolioFiguresInBigint(scratch(), r, rate, own)) };
}

function req(deposit: bigint, unrealizedPnl: bigint, initialMargin: bigint, initialMarginWithOrders: bigint): Requirement {
  return { deposit, unrealizedPnl, equity: deposit + unrealizedPnl, initialMargin, initialMarginWithOrders, cashNeeded: 0n, positionCount: 3 };
}

t.test('Cash: a double up to 2^53 - 1, the bigint from 2^53, in both signs', async (t) => {
  t.equal(cashOf(SAFE), Number.MAX_SAFE_INTEGER);
  t.equal(cashOf(-SAFE), -Number.MAX_SAFE_INTEGER);
  t.equal(cashOf(SAFE + 1n), SAFE + 1n, '2^53 stays a bigint');
  t.equal(cashOf(-SAFE - 1n), -SAFE - 1n);
  t.equal(cashOf(SAFE + 2n), SAFE + 2n, '2^53 + 1 (no double holds it) stays a bigint');
  t.equal(cashBig(Number.MAX_SAFE_INTEGER), SAFE, 'and converts back to the unit');
  t.equal(cashBig(SAFE + 2n), SAFE + 2n);
});

t.test('the maintenance margin rounds up in doubles while exact, else answers -1', async (t) => {
  t.equal(ceilRateInDoubles(0, RATE), 0);
  t.equal(ceilRateInDoubles(1, RATE), 1, '0.8 rounds up to 1');
  t.equal(ceilRateInDoubles(5, RATE), 4, 'a whole result stays');
  // The rate is 4/5: x x 4 is exact up to 2^53 - 1.
  const top = Math.floor(Number.MAX_SAFE_INTEGER / 4);
  t.equal(ceilRateInDoubles(top, RATE), Number((BigInt(top) * RATE + WAD - 1n) / WAD), 'at the bound of the product');
  t.equal(ceilRateInDoubles(top + 1, RATE), -1, 'one past it: the bigint path');
  t.equal(ceilRateInDoubles(7, 1n), -1, 'a rate of 10^-18, whose ratio does not reduce below 2^53: the bigint path');
});

t.test('each bound: 2^53 - 1 in doubles, 2^53 in bigint, both equal to the bigint view', async (t) => {
  const cases: [string, Requirement, bigint, boolean][] = [
    ['deposit 2^53 - 1', req(SAFE, 0n, 0n, 0n), SAFE, true],
    ['deposit 2^53', req(SAFE + 1n, 0n, 0n, 0n), SAFE + 1n, false],
    ['deposit -(2^53 - 1)', req(-SAFE, 0n, 0n, 0n), -SAFE, true],
    ['deposit -2^53', req(-SAFE - 1n, 0n, 0n, 0n), -SAFE - 1n, false],
    ['equity 2^53 - 1 from deposit and PnL', req(SAFE - 5n, 5n, 3n, 4n), 10n, true],
    ['equity 2^53 from deposit and PnL', req(SAFE - 5n, 6n, 3n, 4n), 10n, false],
    ['margin 2^53 - 1', req(10n, 0n, SAFE, SAFE), 10n, false], // x 4 leaves the bound: the maintenance margin in bigint
    ['margin whose product stays exact', req(10n ** 12n, 0n, 2n ** 50n, 2n ** 50n), 10n ** 12n, true],
    ['free equity beyond the bound', req(SAFE, 0n, 0n, -1n), SAFE, false], // a negative margin cannot happen; its difference must still be checked
    ['own deposit 2^53 (wide)', req(10n, 0n, 0n, 0n), SAFE + 1n, false],
    ['own deposit 2^53 - 1', req(10n, 0n, 0n, 0n), SAFE, true],
  ];
  for (const [what, r, own, doubles] of cases) {
    const got = figuresOf(r, own);
    t.same(got.wire, reference(r, RATE, own), `${what}: equal to the bigint view`);
    t.same(got.bigint, reference(r, RATE, own), `${what}: the bigint formulas alone too`);
    t.equal(got.inDoubles, doubles, `${what}: ${doubles ? 'in doubles' : 'the bigint fallback'}`);
    t.ok(got.canonical, `${what}: every figure a double exactly when within the bound`);
  }
});

t.test('seeded requirements from small to beyond 2^53: equal to the bigint view, both paths taken', async (t) => {
  const next = rng(19).next;
  /** A non-negative bigint below 2^bits, sometimes exactly at a bound. */
  const upTo = (bits: number): bigint => {
    const u = next();
    if (u < 0.03) return SAFE;
    if (u < 0.06) return SAFE + 1n;
    let v = 0n;
    for (let b = 0; b < bits; b += 16) v = (v << 16n) | BigInt(Math.floor(next() * 65536));
    return v % (1n << BigInt(bits));
  };
  const signed = (bits: number): bigint => (next() < 0.5 ? -upTo(bits) : upTo(bits));
  const rates = [RATE, WAD / 2n, WAD, 1n, 333_333_333_333_333_333n, (WAD * 3n) / 7n];
  let doubles = 0;
  let bigints = 0;
  let healthy = 0;
  for (let i = 0; i < 20_000; i++) {
    const bits = [20, 40, 50, 53, 54, 60, 70][i % 7]!;
    const deposit = signed(bits);
    const im = next() < 0.1 ? 0n : upTo(bits);
    const imo = im + (next() < 0.3 ? 0n : upTo(bits - 4));
    const r = req(deposit, signed(bits), im, imo);
    const own = next() < 0.5 ? deposit : signed(bits);
    const rate = rates[i % rates.length]!;
    const got = figuresOf(r, own, rate);
    const want = reference(r, rate, own);
    const text = (x: unknown) => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    if (text(got.wire) !== text(want) || text(got.bigint) !== text(want) || !got.canonical) {
      t.fail(`case ${i}: ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))} own ${own} rate ${rate}`);
      return;
    }
    if (got.inDoubles) doubles++;
    else bigints++;
    if (want.isHealthy) healthy++;
  }
  t.ok(doubles > 3_000 && bigints > 3_000, `both paths exercised (${doubles} in doubles, ${bigints} in bigint)`);
  t.ok(healthy > 1_000 && healthy < 19_000, `healthy and unhealthy accounts (${healthy} healthy)`);
});
