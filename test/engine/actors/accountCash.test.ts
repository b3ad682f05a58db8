/**
 * The account side's cash in doubles with a checked bigint fallback: a portfolio's deposit
 * (its row in the account actor's engine/actors/cashRows.ts) and the margin book's deposit sum, and a position's premium and
 * realised PnL (engine/actors/position.ts). A deposit is the bigint sum of its changes to the
 * unit on both sides of 2^53 - 1. A position's figures are the
 * results as the reference engine's bigint formula (test/engine/reference), to the unit, for
 * seeded fills of every kind (open, add, partial close, full close, flip) at small and at
 * bound-sized amounts; exact at 2^53 - 1, wide (bigint, never rounded) from 2^53, and back in
 * doubles when a change brings both figures within the bound again. A position's balance is in
 * lots of its pair's size step (engine/domain/lots.ts): a double while |lots| <= 2^53 - 1, a
 * bigint beyond (a size step of 1 WAD reaches it at 0.009 contract); the split of a partial
 * close in doubles while its products are below 2^53, in bigint from there.
 */
import t, { type Test } from 'tap';
import type { Hex } from '../../../engine/domain/hex.ts';
import { applyToPosition, balanceOf, contractsOfPosition, emptyPosition, isFlat, mulDivTrunc, newPosition, premiumOf, realizedOf, setCash, type Position } from '../../../engine/actors/position.ts';
import { addLots, bigLots, contractsOf, longDelta, lotNumberOf, lotsOfBig, lotsOfWad, negLots } from '../../../engine/domain/lots.ts';
import { newPortfolio } from '../../../engine/actors/portfolio.ts';
import { OrderSlots } from '../../../engine/actors/openOrders.ts';
import { CashRows } from '../../../engine/actors/cashRows.ts';
import { Venue } from '../../../engine/venue.ts';
import { listedVenue } from '../support/venueFixture.ts';
import { MarginBook } from '../../../engine/risk/marginBook.ts';
import { QuoteBoard } from '../../../engine/risk/riskQuote.ts';
import { applyToPosition as referenceApply, type Position as ReferencePosition } from '../reference/engine/actors/position.ts';

const SAFE = 2n ** 53n - 1n;
const WAD = 10n ** 18n;
const SERIES = `0x${'1'.repeat(64)}` as Hex;
const series = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}` as Hex;

/** A small seeded generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const inBound = (x: bigint): boolean => x <= SAFE && x >= -SAFE;

function check(t: Test, p: Position, ref: ReferencePosition, what: string): boolean {
  const same = balanceOf(p) === ref.balance && premiumOf(p) === ref.premium && realizedOf(p) === ref.realized;
  const canonical = (p.wide === null) === (inBound(premiumOf(p)) && inBound(realizedOf(p))) && (typeof p.lots === 'number') === inBound(bigLots(p.lots));
  if (!same) t.fail(`${what}: ${balanceOf(p)}/${premiumOf(p)}/${realizedOf(p)} != reference ${ref.balance}/${ref.premium}/${ref.realized}`);
  if (!canonical) t.fail(`${what}: wide is ${p.wide !== null} for ${premiumOf(p)}/${realizedOf(p)}, lots ${typeof p.lots} for ${p.lots}`);
  return same && canonical;
}

// Lot: the pair's size step (WAD per lot). Sizes are whole multiples of 10^-3 contract, so a step
// of 10^15 gives 1 to 5,000 lots a fill, 10^12 a thousand times more, and 1 WAD up to 5 x 10^18
// lots: beyond 2^53 - 1, the bigint fallback of the balance.
for (const [seed, scale, lot, label] of [
  [1, 10n ** 9n, 10n ** 15n, 'everyday amounts'],
  [2, 10n ** 12n, 10n ** 15n, 'large amounts'],
  [3, SAFE / 3n, 10n ** 15n, 'amounts near the bound (sums cross it)'],
  [4, SAFE * 4n, 10n ** 15n, 'amounts beyond the bound'],
  [5, 10n ** 9n, 10n ** 12n, 'everyday amounts, a finer size step'],
  [6, 10n ** 9n, 1n, 'balances beyond 2^53 - 1 lots (a size step of 1 WAD)'],
  [7, SAFE / 3n, 1n, 'balances and amounts beyond the bound'],
] as const) {
  t.test(`seeded fills against the bigint formula: ${label}`, async (t) => {
    const r = rng(seed);
    const big = (max: bigint): bigint => (BigInt(Math.floor(r() * 2 ** 30)) * max) / 2n ** 30n;
    let ok = 0;
    let narrow = 0;
    let wide = 0;
    let wideLots = 0;
    let splitInDoubles = 0;
    let splitInBigint = 0;
    for (let run = 0; run < 40; run++) {
      const p = newPosition(SERIES, lot, 0n, 0n, 0n);
      const ref: ReferencePosition = { seriesId: SERIES, balance: 0n, premium: 0n, realized: 0n };
      for (let i = 0; i < 50; i++) {
        // Sometimes exactly the position (a full close) or twice it and one lot (a flip).
        const k = r();
        const held = bigLots(p.lots) < 0n ? -bigLots(p.lots) : bigLots(p.lots);
        let qty = (BigInt(1 + Math.floor(r() * 5000)) * WAD) / 1000n / lot;
        if (k < 0.15 && held !== 0n) qty = held;
        else if (k < 0.25 && held !== 0n) qty = 2n * held + 1n;
        const buy = r() < 0.5;
        const signed = buy ? qty : -qty;
        const flow = buy ? -big(scale) : big(scale);
        if (held !== 0n && (bigLots(p.lots) > 0n) !== buy && qty < held) {
          const premium = premiumOf(p) < 0n ? -premiumOf(p) : premiumOf(p);
          if (premium * qty <= SAFE && inBound(held) && p.wide === null) splitInDoubles++;
          else splitInBigint++;
        }
        const got = applyToPosition(p, lotsOfBig(signed), flow);
        const [before, after, realized] = [bigLots(got.before) * lot, bigLots(got.after) * lot, BigInt(got.realized)];
        const want = referenceApply(ref, signed * lot, flow);
        if (before !== want.before || after !== want.after || realized !== want.realized) t.fail(`run ${run} fill ${i}: change ${realized} != ${want.realized}`);
        else if (check(t, p, ref, `run ${run} fill ${i}`)) ok++;
        if (contractsOfPosition(p) !== Number(ref.balance) / 1e18) t.fail(`run ${run} fill ${i}: contracts ${contractsOfPosition(p)} != ${Number(ref.balance) / 1e18}`);
        if (p.wide === null) narrow++;
        else wide++;
        if (typeof p.lots === 'bigint') wideLots++;
      }
    }
    t.equal(ok, 2000, 'every fill equal to the reference');
    if (scale < 10n ** 13n) t.equal(wide, 0, 'all in doubles');
    else t.ok(wide > 0 && (scale > SAFE || narrow > 0), `both sides of the bound visited (${narrow} in doubles, ${wide} wide)`);
    if (lot === 1n) t.ok(wideLots > 0 && wideLots < 2000, `balances on both sides of 2^53 - 1 lots (${wideLots} beyond)`);
    else t.equal(wideLots, 0, 'every balance in doubles');
    if (scale === 10n ** 9n && lot !== 1n) t.ok(splitInDoubles > 0, `partial closes split in doubles (${splitInDoubles})`);
    if (scale > 10n ** 9n) t.ok(splitInBigint > 0, `partial closes split in bigint (${splitInBigint})`);
  });
}

t.test('the split of a partial close: in doubles while premium x closed < 2^53, the bigint formula from there', async (t) => {
  const S = 2 ** 53 - 1;
  t.equal(mulDivTrunc(-S, 1, 3), -3002399751580330, 'a product of 2^53 - 1: exact, truncated toward zero');
  t.equal(mulDivTrunc(S, 1, 3), 3002399751580330);
  t.ok(Number.isNaN(mulDivTrunc(2 ** 52, 2, 3)), 'a product of 2^53: NaN (the bigint path)');
  t.ok(Number.isNaN(mulDivTrunc(-(2 ** 52), 2, 3)));
  t.equal(mulDivTrunc(7, 3, 3), 7);
  t.equal(Object.is(mulDivTrunc(-1, 1, 3), 0), true, 'no negative zero');
  const r = rng(11);
  let bad = 0;
  for (let i = 0; i < 20000; i++) {
    const den = 1 + Math.floor(r() * 2 ** (1 + Math.floor(r() * 40)));
    const num = 1 + Math.floor(r() * den);
    const a = Math.floor(r() * 2 ** Math.floor(r() * 54)) * (r() < 0.5 ? -1 : 1);
    const got = mulDivTrunc(a, num, den);
    const exactProduct = BigInt(a < 0 ? -a : a) * BigInt(num) <= SAFE;
    if (exactProduct !== !Number.isNaN(got) || (exactProduct && BigInt(got) !== (BigInt(a) * BigInt(num)) / BigInt(den))) bad++;
  }
  t.equal(bad, 0, 'seeded: the truncated bigint quotient whenever the product is below 2^53, NaN otherwise');
  // Through a position, against the reference, on each side of the bound.
  for (const [premium, closed, held] of [
    [-SAFE, 1n, 3n],
    [-(2n ** 52n), 2n, 3n],
    [SAFE, 2n ** 52n, 2n ** 53n - 1n],
    [3n, SAFE, SAFE],
  ] as const) {
    const lot = 10n ** 12n;
    const p = newPosition(SERIES, lot, held * lot, premium, 0n);
    const ref: ReferencePosition = { seriesId: SERIES, balance: held * lot, premium, realized: 0n };
    const got = applyToPosition(p, lotsOfBig(-closed), 5n);
    const want = referenceApply(ref, -closed * lot, 5n);
    t.equal(BigInt(got.realized), want.realized, `premium ${premium}, ${closed} of ${held} lots closed`);
    check(t, p, ref, `premium ${premium}, ${closed} of ${held}`);
  }
});

t.test('lots at the bound: 2^53 - 1 in a double, beyond in bigint, back in a double', async (t) => {
  const S = 2 ** 53 - 1;
  t.equal(addLots(2 ** 52, 2 ** 52 - 1), S, 'a sum of 2^53 - 1: a double');
  t.equal(addLots(S, 1), SAFE + 1n, '2^53: a bigint');
  t.equal(addLots(S, 2), SAFE + 2n, '2^53 + 1 (no double holds it): exact');
  t.equal(addLots(-S, -2), -SAFE - 2n);
  t.equal(addLots(SAFE + 2n, -3), S - 1, 'back within the bound: a double again');
  t.equal(negLots(-SAFE - 1n), SAFE + 1n);
  t.equal(negLots(5), -5);
  t.equal(lotsOfBig(SAFE), S);
  t.equal(lotsOfBig(-SAFE - 1n), -SAFE - 1n);
  t.equal(longDelta(-3, 5), 5);
  t.equal(longDelta(S, -1), -S);
  t.equal(longDelta(SAFE + 1n, 0), -SAFE - 1n, 'a long beyond the bound closing');
  t.equal(longDelta(2, SAFE + 5n), SAFE + 3n);
  t.equal(lotsOfWad(30n, 3n), 10);
  t.throws(() => lotsOfWad(31n, 3n), /not a multiple/, 'off the grid: refused, never rounded');
  const p = emptyPosition(SERIES, 1n);
  applyToPosition(p, S, -1n);
  t.equal(p.lots, S, 'a balance of 2^53 - 1 lots: a double');
  applyToPosition(p, 1, -1n);
  t.equal(p.lots, SAFE + 1n, 'one lot more: a bigint');
  t.equal(balanceOf(p), SAFE + 1n);
  t.equal(contractsOfPosition(p), Number(SAFE + 1n) / 1e18);
  const c = applyToPosition(p, -2, 0n);
  t.same([c.before, c.after, p.lots], [SAFE + 1n, S - 1, S - 1], 'reduced below the bound: a double again');
  t.equal(premiumOf(p), -2n + ((2n * 2n) / (SAFE + 1n)), 'the split of a bigint balance: the bigint formula');
});

t.test('contracts from lots: Number(lots x step) / 1e18 bit for bit, for steps a double holds and steps it does not', async (t) => {
  const r = rng(13);
  let bad = 0;
  let inDoubles = 0;
  for (let i = 0; i < 20000; i++) {
    const lot = i % 5 === 4 ? 2n ** 60n + BigInt(1 + Math.floor(r() * 1000)) : BigInt(1 + Math.floor(r() * 2 ** 20)) * 10n ** BigInt(Math.floor(r() * 19));
    const lotNumber = lotNumberOf(lot);
    if (lotNumber === lotNumber) inDoubles++;
    const lots = Math.floor(r() * 2 ** Math.floor(r() * 54)) * (r() < 0.5 ? -1 : 1);
    if (contractsOf(lots, lot, lotNumber) !== Number(BigInt(lots) * lot) / 1e18) bad++;
  }
  t.equal(bad, 0, 'seeded lots and steps');
  t.ok(inDoubles > 10000 && inDoubles < 20000, `both kinds of step (${inDoubles} held in doubles)`);
  t.ok(Number.isNaN(lotNumberOf(2n ** 53n + 1n)), 'a step no double holds: NaN (the bigint path)');
  t.equal(lotNumberOf(10n ** 16n), 1e16, '10^16 = 2^16 x 5^16: held exactly although above 2^53');
});

t.test('premium at the bound: 2^53 - 1 in doubles, one unit more wide and exact', async (t) => {
  const p = newPosition(SERIES, WAD, 0n, 0n, 0n);
  applyToPosition(p, 1, -SAFE);
  t.equal(p.wide, null);
  t.equal(p.premium, -(2 ** 53 - 1), 'the largest premium held in a double');
  applyToPosition(p, 1, -1n);
  t.not(p.wide, null, 'one unit more: wide');
  t.ok(Number.isNaN(p.premium), 'no rounded double is left to read');
  t.equal(premiumOf(p), -SAFE - 1n);
  applyToPosition(p, 1, -1n);
  t.equal(premiumOf(p), -SAFE - 2n, '2^53 + 1 (which no double holds): exact');
  const change = applyToPosition(p, -1, 0n);
  t.equal(BigInt(change.realized), (-SAFE - 2n) / 3n, 'a third closed: the floor toward zero of the bigint formula');
  t.equal(premiumOf(p), -SAFE - 2n - (-SAFE - 2n) / 3n);
  t.equal(p.wide, null, 'both figures back within the bound: in doubles again');
  t.equal(realizedOf(p), (-SAFE - 2n) / 3n);
});

t.test('realised PnL at the bound, a full close, and flat positions', async (t) => {
  const p = newPosition(SERIES, WAD, WAD, 0n, SAFE - 10n);
  t.equal(p.wide, null);
  const c = applyToPosition(p, -1, 10n);
  t.equal(BigInt(c.realized), 10n, 'a full close realises the whole premium and fill (no division)');
  t.equal(p.realized, 2 ** 53 - 1, 'realised PnL 2^53 - 1: in doubles');
  t.ok(isFlat(p));
  applyToPosition(p, 1, -5n);
  applyToPosition(p, -1, 6n);
  t.not(p.wide, null, 'realised PnL 2^53: wide');
  t.equal(realizedOf(p), SAFE + 1n);
  t.equal(premiumOf(p), 0n);
  t.ok(isFlat(p), 'flat although wide: a premium of 0 held in bigint');
  setCash(p, 3n, SAFE + 1n);
  t.notOk(isFlat(p));
  t.same(newPosition(SERIES, WAD, 0n, -SAFE, SAFE), { seriesId: SERIES, lot: WAD, lotNumber: 1e18, lots: 0, premium: -(2 ** 53 - 1), realized: 2 ** 53 - 1, wide: null });
  t.same(newPosition(SERIES, WAD, 0n, 1n, -SAFE - 1n).wide, { premium: 1n, realized: -SAFE - 1n });
});

t.test('a deposit at the bound: 2^53 - 1 in a double, 2^53 and 2^53 + 1 wide and exact, back in a double below', async (t) => {
  const c = new CashRows();
  const h = 1;
  const row = (): [number, bigint | null] => [c.deposit[h]!, c.wideOf(h)];
  c.add(h, SAFE);
  t.same(row(), [2 ** 53 - 1, null], 'the largest deposit held in a double');
  c.add(h, 1n);
  t.ok(Number.isNaN(c.deposit[h]!), '2^53: wide, no rounded double left to read');
  t.equal(c.of(h), SAFE + 1n);
  c.add(h, 1n);
  t.equal(c.of(h), SAFE + 2n, '2^53 + 1 (which no double holds): exact');
  c.add(h, 3n, -1);
  t.same(row(), [2 ** 53 - 2, null], 'back within the bound: a double again');
  c.add(h, SAFE * 1000n);
  t.equal(c.of(h), SAFE * 1001n - 1n, 'an amount beyond the bound: added in bigint');
  c.set(h, -SAFE);
  t.same(row(), [-(2 ** 53 - 1), null]);
  c.add(h, -1n);
  t.equal(c.of(h), -SAFE - 1n, 'and on the negative side');
  c.add(h, 1n, -1);
  t.equal(c.of(h), -SAFE - 2n, 'taken away beyond the bound: in bigint');
  c.add(h, -SAFE - 2n, -1);
  t.same(row(), [0, null], 'taking away a negative amount beyond the bound');
  t.same([c.of(0), c.of(-1)], [0n, 0n], 'the other rows untouched; no portfolio (-1) holds 0');
});

t.test('the rows grow with the handles and keep what they hold; two sets of rows are apart', async (t) => {
  const c = new CashRows();
  c.set(3, SAFE + 9n);
  c.set(5, 42n);
  c.ensure(1000);
  t.ok(c.deposit.length > 1000, 'room for handle 1000');
  t.same([c.of(3), c.of(5), c.of(1000)], [SAFE + 9n, 42n, 0n], 'grown: the same deposits, a new row 0');
  const other = new CashRows();
  t.same([other.of(3), other.of(5)], [0n, 0n], 'another venue\'s rows: their own');
  const v1 = listedVenue();
  const v2 = listedVenue();
  const owner = `0x${'9'.repeat(40)}`;
  v1.fund(owner, 7n);
  v2.fund(owner, 11n);
  const p1 = v1.venue.state.accounts.portfolio(owner, 1)!;
  const p2 = v2.venue.state.accounts.portfolio(owner, 1)!;
  t.equal(p1.handle, p2.handle, 'the same handle in two venues');
  t.same([v1.venue.state.accounts.depositOf(p1), v2.venue.state.accounts.depositOf(p2)], [7n, 11n], 'each venue its own deposit');
});

t.test('seeded deposit changes against their bigint sum, across the bound', async (t) => {
  const r = rng(7);
  const c = new CashRows();
  const h = 0;
  let want = 0n;
  let bad = 0;
  let wide = 0;
  for (let i = 0; i < 5000; i++) {
    const scale = [10n ** 6n, 10n ** 12n, SAFE / 2n, SAFE * 3n][Math.floor(r() * 4)]!;
    const amount = ((BigInt(Math.floor(r() * 2 ** 30)) * scale) / 2n ** 30n) * (r() < 0.5 ? -1n : 1n);
    if (r() < 0.5) c.add(h, amount);
    else c.add(h, -amount, -1);
    want += amount;
    if (c.of(h) !== want || (c.wideOf(h) === null) !== (want <= SAFE && want >= -SAFE)) bad++;
    if (c.wideOf(h) !== null) wide++;
  }
  t.equal(bad, 0, 'every change equal to the bigint sum, in a double exactly when within the bound');
  t.ok(wide > 0 && wide < 5000, `both sides visited (${wide} wide)`);
});

t.test("the margin book's deposit: one portfolio and a market maker's group, at the bound and beyond", async (t) => {
  const rows = new CashRows();
  const p = newPortfolio(`0x${'c'.repeat(40)}`, 0, 0, 1, 0);
  const single = new MarginBook(new QuoteBoard(), rows, new OrderSlots(), (x) => x, (x) => [x], 0.1);
  rows.set(p.handle, SAFE);
  t.equal(single.requirement(p).deposit, SAFE);
  rows.set(p.handle, SAFE + 2n);
  t.equal(single.requirement(p).deposit, SAFE + 2n, 'a wide deposit, exact (the memo not reused)');
  rows.set(p.handle, SAFE + 4n);
  t.equal(single.requirement(p).deposit, SAFE + 4n, 'another wide deposit: recomputed');
  t.equal(single.requirement(p).equity, SAFE + 4n);

  const owner = `0x${'d'.repeat(40)}`;
  const cash = newPortfolio(owner, 1, 1, 0, 0);
  const inner = newPortfolio(owner, 1, 2, -1, 0, series(9));
  const group = new MarginBook(new QuoteBoard(), rows, new OrderSlots(), () => cash, () => [cash, inner], 0.1);
  rows.set(cash.handle, 2n ** 52n);
  rows.set(inner.handle, 2n ** 52n - 1n);
  t.equal(group.requirement(inner).deposit, SAFE, 'the group sum 2^53 - 1: in doubles');
  rows.set(inner.handle, 2n ** 52n + 1n);
  t.equal(group.requirement(cash).deposit, SAFE + 2n, 'the sum 2^53 + 1: in bigint, to the unit');
  rows.set(cash.handle, SAFE);
  rows.set(inner.handle, -SAFE + 5n);
  t.equal(group.requirement(cash).deposit, 5n, 'members at the bound summing back within it');
});

t.test('a snapshot holds wide and narrow figures in bigint, and restores them to the same bytes', async (t) => {
  const h = listedVenue();
  const rich = `0x${'e'.repeat(40)}`;
  const plain = `0x${'f'.repeat(40)}`;
  h.fund(rich, SAFE * 5n);
  h.fund(plain, 1_000_000n);
  const a = h.venue.state.accounts;
  t.not(a.cash.wideOf(a.portfolio(rich, 1)!.handle), null, 'a deposit of 5 x (2^53 - 1): wide');
  t.equal(a.cash.wideOf(a.portfolio(plain, 1)!.handle), null);
  const p = a.portfolio(plain, 1)!;
  // A listed series: its pair's size step (WAD / 100) is the position's lot.
  const listed = [...h.venue.state.series.keys()][0]!;
  p.positions.set(listed, newPosition(listed, WAD / 100n, WAD, -SAFE - 3n, 7n));
  const bytes = h.venue.serialize();
  const dump = JSON.parse(new TextDecoder().decode(bytes)) as { accounts: { owner: string; portfolios: { id: number; deposit: { $b: string }; positions: object[] }[] }[] };
  const rows = dump.accounts.flatMap((x) => x.portfolios.filter((q) => q.id === 1).map((q) => ({ owner: x.owner, q })));
  t.same(rows.find((r) => r.owner === rich)!.q.deposit, { $b: (SAFE * 5n).toString() }, 'the wide deposit as its bigint');
  t.same(rows.find((r) => r.owner === plain)!.q.positions, [{ seriesId: listed, balance: { $b: WAD.toString() }, premium: { $b: (-SAFE - 3n).toString() }, realized: { $b: '7' } }], 'a position: its fields in the old order, in bigint');
  const restored = Venue.restore(bytes);
  t.same(restored.serialize(), bytes, 'restored and serialized again: the same bytes');
  const back = restored.state.accounts.portfolio(plain, 1)!.positions.get(listed)!;
  t.same([premiumOf(back), realizedOf(back), back.wide !== null, back.lots, balanceOf(back)], [-SAFE - 3n, 7n, true, 100, WAD], 'restored: 1 WAD as 100 lots');
  t.equal(restored.state.accounts.depositOf(restored.state.accounts.portfolio(rich, 1)!), SAFE * 5n);
});
