/**
 * The engine's compact events and their converter (engine/wire.ts, docs/events.md "The
 * engine's compact form"): what `Venue.apply` returns carries lots, ticks and cash in doubles
 * (no bigint in a book fill's trade, order, depth or portfolio figures); the converter makes
 * today's wire values from them (the differential tests compare every event of long streams
 * with the frozen reference; here: the formulas, the bounds, and what it learns from where).
 */
import t from 'tap';
import type { EngineEvent, EngineTradeEvent, EnginePortfolioEvent, EnginePositionEvent, PortfolioEvent, PositionEvent, TradeEvent, VenueEvent } from '../../engine/events.ts';
import { WireEvents } from '../../engine/wire.ts';
import { Venue } from '../../engine/venue.ts';
import { WAD, UINT256_MAX } from '../../engine/domain/fixed.ts';
import { listedVenue, wireApply, ALICE, BOB, BTC, usdc, wad } from './support/venueFixture.ts';

const SAFE = 2n ** 53n - 1n;
const bigintFields = (e: object): string[] => Object.entries(e).filter(([, v]) => typeof v === 'bigint').map(([k]) => k);

function crossed() {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1)] });
  const bid = h.order(BOB, call, true, 2100, 0.4);
  h.ts += 1;
  const cmd = { type: 'place' as const, orders: [bid], seq: ++h.seq, ts: h.ts };
  return { h, call, cmd };
}

t.test("a book fill's events in the compact form: no bigint but the position's balance and the series' open interest", async (t) => {
  const { h, cmd } = crossed();
  const r = h.venue.apply(cmd);
  t.ok(r.ok);
  const types = new Set(r.events.map((e) => e.type));
  t.same([...types].sort(), ['depth', 'order', 'portfolio', 'position', 'trade']);
  for (const e of r.events) {
    const allowed = e.type === 'position' ? ['balance'] : e.type === 'trade' ? ['openInterest'] : e.type === 'order' ? ['nonce'] : [];
    t.same(bigintFields(e).filter((k) => !allowed.includes(k)), [], `${e.type}: numbers only`);
    if (e.type === 'depth') for (const l of [...e.bids, ...e.asks]) t.ok(l.every((x) => typeof x === 'number'), 'depth levels as [tick, lots, count]');
  }
  const trade = r.events.find((e): e is EngineTradeEvent => e.type === 'trade')!;
  t.match(trade, { tick: 200_000, lots: 40, priceWad: null, sizeWad: null, premium: 800_000_000, notional: 40_000_000_000, takerFee: 12_000_000, makerFee: 0 });
});

t.test('the converter: the wire values from ticks, lots and the grid it learned', async (t) => {
  const { h, cmd } = crossed();
  const compact = h.venue.apply(cmd);
  const out = h.wire.result(compact).events;
  t.equal(out.length, compact.events.length);
  const trade = out.find((e): e is TradeEvent => e.type === 'trade')!;
  t.match(trade, { price: 2000n * WAD, size: wad(0.4), premium: usdc(800), notional: usdc(40_000), takerFee: usdc(12), makerFee: 0n });
  const order = out.find((e) => e.type === 'order' && e.orderId === cmd.orders[0]!.orderId)!;
  t.match(order, { price: 2000n * WAD + 100n * WAD, tick: 210_000, size: wad(0.4), filled: wad(0.4), remaining: 0n });
  const depth = out.find((e) => e.type === 'depth')!;
  t.same(depth.type === 'depth' && depth.asks, [[2000n * WAD, wad(0.6), 1]], 'a level: [price WAD, size WAD, count]');
  const pos = out.find((e): e is PositionEvent => e.type === 'position' && e.owner === BOB)!;
  t.match(pos, { balance: wad(0.4), premium: -usdc(800), averagePrice: 2000n * WAD, realizedPnl: 0n });
  const pf = out.find((e): e is PortfolioEvent => e.type === 'portfolio' && e.owner === BOB)!;
  t.equal(typeof pf.healthRatio, 'bigint', 'the health ratio added');
  t.equal(pf.deposit, usdc(100_000) - usdc(12));
  // Events that have no compact form are handed on as they are.
  const clock = h.venue.apply({ type: 'clock', seq: ++h.seq, ts: (h.ts += 1) });
  const wired = h.wire.result(clock);
  for (let i = 0; i < clock.events.length; i++) if (!['trade', 'order', 'depth', 'position', 'portfolio'].includes(clock.events[i]!.type)) t.equal(wired.events[i], clock.events[i] as VenueEvent);
});

t.test('it learns the grids from the events only: listings, or the image at start', async (t) => {
  const { h, cmd } = crossed();
  const fresh = new WireEvents();
  const compact = h.venue.apply(cmd);
  t.throws(() => fresh.events(compact.events), /was not listed by any series_listed event/, 'a series it was never told of: refused, never guessed');
  t.same(fresh.events([{ type: 'depth', seriesId: cmd.orders[0]!.seriesId, bookSeq: 1, prevBookSeq: 0, bids: [], asks: [], seq: 1, ts: 1 }]), [{ type: 'depth', seriesId: cmd.orders[0]!.seriesId, bookSeq: 1, prevBookSeq: 0, bids: [], asks: [], seq: 1, ts: 1 }], 'an empty depth needs no grid');
  t.throws(() => new WireEvents().events(h.venue.imageEvents().filter((e) => e.type !== 'pair_listed')), /which no pair_listed event named/);
  // Seeded by the image, a converter gives what the one that saw every listing gives.
  const next = h.order(ALICE, cmd.orders[0]!.seriesId, true, 1990, 0.2);
  const c2 = { type: 'place' as const, orders: [next], seq: ++h.seq, ts: (h.ts += 1) };
  const fromImage = wireApply(h.venue);
  // A replay of the same commands, converted by a converter that saw every command's events (the listings among them).
  const twin = Venue.create(h.venue.state.config);
  const viaListings = new WireEvents();
  for (const c of [...h.log, cmd]) viaListings.result(twin.apply(c));
  const a = fromImage(c2);
  const b = viaListings.result(twin.apply(c2));
  t.equal(twin.stateHash(), h.venue.stateHash(), 'the replay is the venue');
  t.same(a, b, 'the same wire events from either converter');
  t.ok(a.events.some((e) => e.type === 'order'), 'an order event among them');
});

t.test('cash at the bound: a double up to 2^53 - 1, the bigint beyond, both converted to the unit', async (t) => {
  const w = new WireEvents();
  w.events([{ type: 'pair_listed', pairId: BTC, symbol: 'BTC-USDC', underlying: 'BTC', quote: 'USDC', tickDecimals: 2, minSize: WAD / 100n, sizeStep: WAD / 100n, maxCallOI: 0n, maxPutOI: 0n, seq: 1, ts: 1 }]);
  const seriesId = `0x${'1'.repeat(64)}` as const;
  const marks = { seriesId, mark: 0n, delta: 0n, gamma: 0n, vega: 0n, theta: 0n, rho: 0n };
  w.event({ type: 'series_listed', seriesId, pairId: BTC, pairSymbol: 'BTC-USDC', underlying: 'BTC', symbol: 'X', strike: 1n, expiry: 1, isCall: true, marks, openInterest: 0n, seq: 1, ts: 1 });
  const trade = (premium: number | bigint, fee: number | bigint, openInterestLots: number | bigint = 0): EngineEvent => ({
    type: 'trade', tradeNo: 1, seriesId, tick: 4_294_967_295, lots: Number.MAX_SAFE_INTEGER, priceWad: null, sizeWad: null, premium, notional: premium, takerSide: 'buy',
    maker: ALICE, taker: BOB, makerOrderId: null, takerOrderId: null, makerPortfolioId: 1, takerPortfolioId: 1, makerFee: fee, takerFee: fee, openInterestLots, source: 'book', seq: 2, ts: 2,
  });
  const at = w.event(trade(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER)) as TradeEvent;
  t.match(at, { premium: SAFE, notional: SAFE, makerFee: -SAFE, price: 4_294_967_295n * 10n ** 16n, size: SAFE * (WAD / 100n) }, '2^53 - 1 lots, the largest tick, 2^53 - 1 cash');
  const beyond = w.event(trade(SAFE + 2n, -(SAFE + 2n))) as TradeEvent;
  t.match(beyond, { premium: SAFE + 2n, makerFee: -(SAFE + 2n) }, 'beyond: the bigint as it is');
  t.equal((w.event(trade(1, 0, Number.MAX_SAFE_INTEGER)) as TradeEvent).openInterest, SAFE * (WAD / 100n), 'open interest: 2^53 - 1 lots in a double');
  t.equal((w.event(trade(1, 0, SAFE + 2n)) as TradeEvent).openInterest, (SAFE + 2n) * (WAD / 100n), 'open interest beyond: the bigint count of lots');
  const rfq = w.event({ ...(trade(1, 0) as EngineTradeEvent), tick: -1, lots: -1, priceWad: 123_456_789n, sizeWad: 7n * WAD, source: 'rfq' }) as TradeEvent;
  t.match(rfq, { price: 123_456_789n, size: 7n * WAD }, 'an RFQ fill off the grid: its WAD price and size');
  // Balances in lots of 0.01 contract.
  const position = (premium: number | bigint, lots: number | bigint): EnginePositionEvent => ({ type: 'position', owner: ALICE, portfolioId: 1, seriesId, lots, premium, realizedPnl: premium, seq: 3, ts: 3 });
  t.match(w.event(position(-Number.MAX_SAFE_INTEGER, 300)), { balance: 3n * WAD, premium: -SAFE, realizedPnl: -SAFE, averagePrice: (SAFE * 10n ** 30n) / (3n * WAD) });
  t.match(w.event(position(SAFE + 1n, -100)), { balance: -WAD, premium: SAFE + 1n, averagePrice: (SAFE + 1n) * 10n ** 12n });
  t.match(w.event(position(5, 0)), { balance: 0n, averagePrice: null }, 'flat: no average price');
  t.match(w.event(position(0, -Number.MAX_SAFE_INTEGER)), { balance: -SAFE * (WAD / 100n) }, 'a balance of -(2^53 - 1) lots in a double');
  t.match(w.event(position(0, -(SAFE + 2n))), { balance: -(SAFE + 2n) * (WAD / 100n) }, 'beyond: the bigint count of lots');
  const portfolio = (equity: number | bigint, mm: number | bigint): EnginePortfolioEvent => ({
    type: 'portfolio', owner: ALICE, portfolioId: 1, createdAt: 0, deposit: equity, unrealizedPnl: 0, equity, initialMargin: mm, initialMarginWithOrders: mm, maintenanceMargin: mm, isHealthy: true, maxWithdraw: 0, positionCount: 0, seq: 4, ts: 4,
  });
  t.match(w.event(portfolio(Number.MAX_SAFE_INTEGER, 3)), { equity: SAFE, healthRatio: (SAFE * WAD) / 3n });
  t.match(w.event(portfolio(SAFE + 1n, SAFE + 1n)), { equity: SAFE + 1n, healthRatio: WAD });
  t.match(w.event(portfolio(0, 0)), { healthRatio: UINT256_MAX }, 'no margin needed: uint256 max');
  t.match(w.event(portfolio(-1, 0)), { healthRatio: 0n }, 'negative equity and no margin: 0');
  t.match(w.event(portfolio(-7, 3)), { healthRatio: (-7n * WAD) / 3n }, 'negative equity: truncated toward zero as before');
});
