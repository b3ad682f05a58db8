/**
 * The margin book (engine/risk/marginBook.ts) kept incrementally through long seeded
 * streams: after every command it equals a rebuild from scratch to the last unit, agrees
 * with the reference margin (the whole account recomputed) up to its rounding, and a
 * restored engine gets the same numbers as the one that never stopped.
 */
import t, { type Test } from 'tap';
import type { CommandBody } from '../../../engine/commands.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import type { VenueState } from '../../../engine/state.ts';
import { Venue } from '../../../engine/venue.ts';
import { MARGIN_ROW, type Portfolio } from '../../../engine/actors/portfolio.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { Harness, listedVenue, BTC, ETH, usdc } from '../support/venueFixture.ts';
import { randomBodies } from '../support/randomStream.ts';
import { naiveMargin } from '../support/naiveMargin.ts';
import { prng } from '../domain/prng.ts';

/** One risk unit (1e-4 of the quote currency) in COLLATERAL6. */
const UNIT = 100n;
/** How many accounts' figures the checks found in doubles (MarginBook.plainInDoubles), to show the comparison ran. */
let plainInDoubles = 0;

function checkAgainstReference(t: Test, state: VenueState, where: string): boolean {
  const problem = state.accounts.margin.verify(state.accounts.allPortfolios());
  if (problem) {
    t.fail(`${where}: kept margin differs from a rebuild: ${problem}`);
    return false;
  }
  const indexProblem = state.verifyOrderIndex();
  if (indexProblem) {
    t.fail(`${where}: order index: ${indexProblem}`);
    return false;
  }
  for (const p of state.accounts.allPortfolios()) {
    // The figures in doubles (the portfolio event's and the liquidation pass's) equal the bigint requirement's, when given.
    const n = state.accounts.margin.plainInDoubles(p);
    const doubles = n === null ? null : { ...n };
    const kept = state.accounts.margin.requirement(p);
    if (doubles !== null) plainInDoubles++;
    if (doubles !== null && (BigInt(doubles.deposit) !== kept.deposit || BigInt(doubles.unrealizedPnl) !== kept.unrealizedPnl || BigInt(doubles.equity) !== kept.equity || BigInt(doubles.initialMargin) !== kept.initialMargin || BigInt(doubles.initialMarginWithOrders) !== kept.initialMarginWithOrders || doubles.positionCount !== kept.positionCount)) {
      t.fail(`${where}: ${p.owner}/${p.id}: figures in doubles ${JSON.stringify(doubles)} differ from the requirement's`);
      return false;
    }
    const ref = naiveMargin(state, p);
    const slack = UNIT * BigInt(ref.terms + 2);
    const who = `${where}: ${p.owner}/${p.id}`;
    if (kept.equity !== ref.equity || kept.cashNeeded !== ref.cashNeeded) {
      t.fail(`${who}: equity ${kept.equity} vs ${ref.equity}, cash needed ${kept.cashNeeded} vs ${ref.cashNeeded}`);
      return false;
    }
    for (const k of ['initialMargin', 'initialMarginWithOrders'] as const) {
      const d = kept[k] - ref[k];
      if (d < -UNIT || d > slack) {
        t.fail(`${who}: ${k} ${kept[k]} kept, ${ref[k]} by the reference (allowed: -${UNIT}..+${slack})`);
        return false;
      }
    }
  }
  return true;
}

t.test('a random stream: kept margin = rebuild = reference after every command', async (t) => {
  const h = new Harness();
  let n = 0;
  for (const { body, advance } of randomBodies(h, 3, 1500)) {
    h.run(body, advance);
    if (!checkAgainstReference(t, h.venue.state, `command ${++n} (${body.type})`)) return;
  }
  t.ok(n > 1500, 'every command checked');
  t.ok(plainInDoubles > 10_000, `the figures in doubles compared with the requirement (${plainInDoubles} times)`);
});

/** Small accounts and a market maker, so that refusals, shorts, closes and settlement all happen. */
function* tightBodies(h: Harness, seed: number, n: number): Generator<{ body: CommandBody; advance: number }> {
  const rnd = prng(seed);
  const wallets = Array.from({ length: 5 }, (_, i) => `0x${(i + 0x51).toString(16).padStart(40, '0')}`);
  const mm = `0x${'ab'.repeat(20)}`;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const live = (pairId: Hex) =>
    [...h.venue.state.series.values()]
      .filter((s) => s.spec.pairId === pairId && !s.settled && s.spec.expiry * 1000 > h.ts + 3_600_000 && s.marks)
      .sort((a, b) => a.spec.expiry - b.spec.expiry || Number(a.spec.strike - b.spec.strike))
      .slice(0, 12)
      .map((s) => s.spec.seriesId);
  yield { body: { type: 'set_mmm', address: mm, isMmm: true }, advance: 1 };
  yield { body: { type: 'deposit', owner: mm, portfolioId: 0, amount: usdc(200_000) }, advance: 1 };
  for (const w of wallets) {
    yield { body: { type: 'create_portfolio', owner: w }, advance: 1 };
    yield { body: { type: 'deposit', owner: w, portfolioId: 1, amount: usdc(2_000 + Math.floor(rnd() * 20_000)) }, advance: 1 };
  }
  for (let i = 0; i < n; i++) {
    const x = rnd();
    const owner = rnd() < 0.3 ? mm : pick(wallets);
    const advance = Math.floor(rnd() * 120_000);
    if (x < 0.6) {
      const pool = live(rnd() < 0.7 ? BTC : ETH);
      if (pool.length === 0) continue;
      const seriesId = pick(pool);
      const mark = Number(h.venue.state.series.get(seriesId)!.marks!.mark) / 1e18;
      const price = Math.max(0.1, Math.round(mark * (0.9 + rnd() * 0.2) * 10) / 10);
      const size = 0.01 * (1 + Math.floor(rnd() * 100));
      const orders = [h.order(owner, seriesId, rnd() < 0.5, price, size, { portfolioId: owner === mm ? 0 : 1 })];
      if (rnd() < 0.15) orders.push(h.order(owner, seriesId, rnd() < 0.5, price, size / 2 > 0.01 ? Math.round(size * 50) / 100 : 0.01, { portfolioId: owner === mm ? 0 : 1 }));
      yield { body: { type: 'place', orders }, advance };
    } else if (x < 0.8) {
      const open = [...h.venue.state.orderIndex.keys()];
      if (open.length === 0) continue;
      const orderId = pick(open);
      const held = h.venue.state.orderIndex.get(orderId)!;
      const rec = h.venue.state.series.get(h.venue.state.accounts.orders.seriesId[held]!)!.openOrder(h.venue.state.accounts.orders.ref[held]!)!;
      const cancel = { orderId, owner: rec.owner, nonce: h.nextNonce(rec.owner), deadline: Math.floor(h.ts / 1000) + 60 };
      const place = h.order(rec.owner, rec.seriesId, !rec.isBuy, (rec.tick + 5) / 100, 0.3, { portfolioId: rec.portfolioId });
      yield { body: rnd() < 0.5 ? { type: 'cancel', cancels: [cancel] } : { type: 'replace', pairs: [{ cancel, place }] }, advance };
    } else if (x < 0.86) {
      const pairId = rnd() < 0.5 ? BTC : ETH;
      const spot = Number(h.venue.state.oracles.get(pairId)!.spot / WAD) * Math.exp((rnd() - 0.5) * 0.06);
      yield { body: { type: 'oracle', pairId, spot: BigInt(Math.round(spot)) * WAD, volatility: ((5n + BigInt(Math.floor(rnd() * 4))) * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, advance };
    } else if (x < 0.96) {
      yield { body: { type: 'clock' }, advance: advance * 40 };
    } else {
      yield { body: { type: 'withdraw', owner, portfolioId: owner === mm ? 0 : 1, amount: usdc(500) }, advance };
    }
  }
}

t.test('small accounts and a market maker: refusals, shorts, settlement; restore agrees', async (t) => {
  const h = listedVenue();
  const codes = new Map<string, number>();
  let n = 0;
  let snapshot: Uint8Array | null = null;
  const rest: CommandBody[] = [];
  for (const { body, advance } of tightBodies(h, 7, 2000)) {
    const r = h.run(body, advance);
    if (snapshot) rest.push(body);
    if (!r.ok) codes.set(r.rejection.code, (codes.get(r.rejection.code) ?? 0) + 1);
    if (!checkAgainstReference(t, h.venue.state, `command ${++n} (${body.type})`)) return;
    if (n === 1000) snapshot = h.venue.serialize();
  }
  t.ok((codes.get('insufficient_margin') ?? 0) > 0, `margin refusals happened (${codes.get('insufficient_margin')})`);
  t.ok((codes.get('insufficient_cash') ?? 0) > 0, `cash refusals happened (${codes.get('insufficient_cash')})`);
  const settled = [...h.venue.state.series.values()].filter((s) => s.settled).length;
  t.ok(settled > 0, 'series settled during the stream');
  const mmPortfolios = [...h.venue.state.accounts.portfolioIds[h.venue.state.accounts.walletOf(`0x${'ab'.repeat(20)}`)]!.keys()];
  t.ok(mmPortfolios.some((id) => id < 0), 'the market maker traded through an internal portfolio');

  // The restored engine rebuilds its margin book: every account's numbers equal the live one's.
  const restored = Venue.restore(snapshot!);
  const live = Venue.restore(snapshot!);
  t.equal(restored.stateHash(), live.stateHash());
  const replay = h.log.slice(h.log.length - rest.length);
  for (const c of replay) {
    restored.apply(c);
  }
  t.equal(restored.stateHash(), h.venue.stateHash(), 'restore + the rest of the commands = the uninterrupted run');
  for (const p of h.venue.state.accounts.allPortfolios()) {
    const q = restored.state.accounts.portfolio(p.owner, p.id)!;
    t.same(restored.state.accounts.margin.requirement(q), h.venue.state.accounts.margin.requirement(p), `${p.owner}/${p.id}`);
  }
});

t.test('a check given the premium it would compute answers the same', async (t) => {
  const h = new Harness();
  for (const { body, advance } of randomBodies(h, 5, 300)) h.run(body, advance);
  const state = h.venue.state;
  const p = state.accounts.portfolio('0x0000000000000000000000000000000000000001', 1)!;
  const [seriesId] = state.series.keys();
  const mark = state.series.get(seriesId!)!.marks!.mark;
  for (const size of [WAD / 100n, (37n * WAD) / 100n]) {
    const order = { seriesId: seriesId!, isBuy: true, size, price: mark, worstFee: 1_000n };
    const premium = (size * mark) / 10n ** 30n;
    t.same(state.accounts.margin.requirement(p, [{ ...order, premium }]), state.accounts.margin.requirement(p, [order]));
  }
});

/** A venue with two funded wallets (100,000 USDC each in portfolio 1) and an at-the-money BTC call. */
function twoWallets(): { h: Harness; alice: string; bob: string; series: Hex } {
  const h = listedVenue();
  const alice = '0x00000000000000000000000000000000000000a1';
  const bob = '0x00000000000000000000000000000000000000b2';
  h.fund(alice, usdc(100_000));
  h.fund(bob, usdc(100_000));
  return { h, alice, bob, series: h.atm(BTC, true) };
}

t.test('the figures as they stand: one requirement and one view per account, rewritten in place when they change; checks in one scratch', async (t) => {
  const { h, alice, bob, series } = twoWallets();
  const accounts = h.venue.state.accounts;
  const p = accounts.portfolio(alice, 1)!;
  const r0 = accounts.margin.requirement(p);
  const v0 = accounts.risk(p);
  const figures0 = { ...r0 };
  t.equal(accounts.margin.requirement(p), r0, 'asked again with nothing changed: the same object');
  t.equal(accounts.risk(p), v0, 'and the same view');
  const check = accounts.margin.requirement(p, [{ seriesId: series, isBuy: true, size: WAD, price: WAD, worstFee: 0n }]);
  t.not(check, r0, 'a check with an order is not the memo');
  t.ok(check.cashNeeded > r0.cashNeeded, 'and counts the order');
  const cashNeeded = check.cashNeeded;
  const check2 = accounts.margin.requirement(p, [{ seriesId: series, isBuy: true, size: 2n * WAD, price: WAD, worstFee: 0n }]);
  t.equal(check2, check, 'every check writes the same scratch object (nothing allocated per check)');
  t.ok(check2.cashNeeded > cashNeeded, 'rewritten with the second check');
  const checkView = accounts.risk(p, [{ seriesId: series, isBuy: true, size: WAD, price: WAD, worstFee: 0n }]);
  t.not(checkView, v0, "a check's view is not the account's");
  t.equal(checkView.initialMarginWithOrders, accounts.margin.requirement(p, [{ seriesId: series, isBuy: true, size: WAD, price: WAD, worstFee: 0n }]).initialMarginWithOrders);
  t.same({ ...accounts.margin.requirement(p) }, figures0, '... and leaves it');
  t.equal(accounts.risk(p), v0, '... and its view');

  h.fund(alice, usdc(1));
  const r1 = accounts.margin.requirement(p);
  t.equal(r1, r0, 'a deposit: the same object, rewritten');
  t.equal(r1.deposit, figures0.deposit + usdc(1));
  const v1 = accounts.risk(p);
  t.equal(v1, v0, 'and the same view, rewritten');
  t.equal(v1.deposit, r1.deposit);
  t.equal(v1.maxWithdraw, figures0.deposit + usdc(1), 'with the figures derived from the new requirement');

  const im1 = r1.initialMarginWithOrders;
  h.ok({ type: 'place', orders: [h.order(alice, series, false, 1000, 1)] });
  const r2 = accounts.margin.requirement(p);
  t.ok(r2.initialMarginWithOrders > im1, 'an open order: counted');
  const v2 = accounts.risk(p);
  t.equal(v2.initialMarginWithOrders, r2.initialMarginWithOrders, 'the view rewritten');
  t.ok(v2.maxWithdraw < figures0.deposit + usdc(1), 'its free cash less the order');

  h.ok({ type: 'place', orders: [h.order(bob, series, true, 1000, 1)] });
  const r3 = accounts.margin.requirement(p);
  t.equal(r3.positionCount, 1, 'a fill: with the position');
  t.equal(accounts.risk(p).positionCount, 1, 'the view rewritten');
  t.equal(accounts.risk(p), v0, 'still the one view object');
  t.equal(accounts.margin.verify(accounts.allPortfolios()), null, 'the kept figures equal a rebuild');
});

t.test("an account's row kept on its portfolio is checked before it is trusted", async (t) => {
  const { h, alice, bob, series } = twoWallets();
  h.ok({ type: 'place', orders: [h.order(alice, series, false, 1000, 1)] });
  h.ok({ type: 'place', orders: [h.order(bob, series, true, 2000, 0.5)] });
  const accounts = h.venue.state.accounts;
  const pa = accounts.portfolio(alice, 1)!;
  const pb = accounts.portfolio(bob, 1)!;
  const figures = (p: Portfolio) => ({ ...accounts.margin.requirement(p) });
  const a0 = figures(pa);
  const b0 = figures(pb);
  t.not(a0.initialMarginWithOrders, b0.initialMarginWithOrders, 'two accounts with different figures');
  const [ra, rb] = [pa[MARGIN_ROW], pb[MARGIN_ROW]];
  t.ok(typeof ra === 'number' && ra >= 0 && ra !== rb, 'each anchor holds its own row');
  pa[MARGIN_ROW] = rb!; // the other account's row: refused, found by the anchor instead
  pb[MARGIN_ROW] = 1_000_000; // no such row
  t.same(figures(pa), a0);
  t.same(figures(pb), b0);
  t.equal(pa[MARGIN_ROW], ra, 'and kept again');
  t.equal(pb[MARGIN_ROW], rb);
  t.equal(accounts.margin.verify(accounts.allPortfolios()), null);
  t.equal(pa[MARGIN_ROW], ra, "verify's scratch book leaves the rows alone");
});
