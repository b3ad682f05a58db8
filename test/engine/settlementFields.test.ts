/**
 * What the engine keeps and says for the settlement stream (docs/chain.md): every order event
 * carries its signed fields, quotes their market maker's signature and a filled RFQ the taker's
 * signed fill; cash commands say what moved; an on-chain deposit the venue refuses is taken once
 * with its refusal; and the rules the settlement contracts check are the engine's too: no order
 * fills at or after its good-till time, however late the clock; a wallet that stops being a
 * market maker no longer trades in portfolio 0; a liquidation never trades an expired series.
 */
import t from 'tap';
import { listedVenue, BTC, ALICE, BOB, MM, usdc, wad } from './support/venueFixture.ts';
import type { ChainEventEvent, OrderEvent, RfqEvent, TradeEvent, VenueEvent } from '../../engine/events.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { Venue } from '../../engine/venue.ts';
import { WAD } from '../../engine/domain/fixed.ts';

const SIG = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b` as Hex;
const orderEvents = (events: readonly VenueEvent[]) => events.filter((e): e is OrderEvent => e.type === 'order');

t.test('an order event carries what the owner signed; a snapshot keeps it for a resting order', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  const spec = h.venue.state.series.get(call)!.spec;
  // A good-till beyond the series' expiry (the engine caps its own) and a deadline beyond 2^53 - 1.
  const ask = h.order(ALICE, call, false, 2000, 1, { expiry: spec.expiry + 3600, deadline: Number.MAX_SAFE_INTEGER, signedDeadline: 2n ** 200n, signature: SIG });
  const placed = h.ok({ type: 'place', orders: [ask] });
  const e = orderEvents(placed.events)[0]!;
  t.equal(e.expiry, spec.expiry, "the order's own good-till is capped at the series' expiry");
  t.same(e.signed && { expiry: e.signed.expiry, deadline: e.signed.deadline, signedDeadline: e.signed.signedDeadline, signature: e.signed.signature }, { expiry: spec.expiry + 3600, deadline: Number.MAX_SAFE_INTEGER, signedDeadline: 2n ** 200n, signature: SIG }, 'its signed fields as signed');
  const unsigned = h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2100, 1)] });
  t.equal(orderEvents(unsigned.events)[0]!.signed, null, 'an order placed without a signature has none');

  const restored = Venue.restore(h.venue.serialize());
  t.equal(restored.stateHash(), h.venue.stateHash(), 'the snapshot restores to the same state');
  const image = orderEvents(h.wire.events(restored.imageEvents())).find((o) => o.orderId === ask.orderId)!;
  t.same(image.signed, { expiry: spec.expiry + 3600, deadline: Number.MAX_SAFE_INTEGER, signedDeadline: 2n ** 200n, signature: SIG }, "the image's order event carries them after a restore");
  h.fund(BOB, usdc(100_000));
  const take = h.ok({ type: 'place', orders: [h.order(BOB, call, true, 2000, 0.5, { signature: SIG })] });
  const maker = orderEvents(take.events).find((o) => o.orderId === ask.orderId)!;
  t.equal(maker.signed?.signature, SIG, "a maker's event after a fill carries them too");
});

t.test('a quote carries its signature, a filled RFQ the taker signed fill', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.fund(MM, usdc(1_000_000), 0);
  h.fund(ALICE, usdc(100_000));
  const created = h.ok({ type: 'rfq_request', taker: ALICE, portfolioId: 1, seriesId: call, size: wad(1), takerIsBuying: true, expiresAt: Math.floor(h.ts / 1000) + 20 });
  const requestId = (created.value as { requestId: Hex }).requestId;
  const quoteId = `0x${'ab'.repeat(32)}` as Hex;
  const quoted = h.ok({ type: 'rfq_quote', requestId, quote: { quoteId, mmm: MM, taker: ALICE, seriesId: call, takerIsBuying: true, price: 2000n * WAD, size: wad(1), nonce: 0n, quoteExpiry: Math.floor(h.ts / 1000) + 10, signature: SIG } });
  const q = quoted.events.find((e): e is Extract<RfqEvent, { type: 'rfq_quote' }> => e.type === 'rfq_quote')!;
  t.equal(q.quote.signature, SIG);
  const filled = h.ok({ type: 'rfq_fill', requestId, quoteId, taker: ALICE, portfolioId: 1, fillSize: wad(0.5), nonce: 77n, deadline: Math.floor(h.ts / 1000) + 60, signature: SIG });
  const resolved = filled.events.find((e): e is Extract<RfqEvent, { type: 'rfq_resolved' }> => e.type === 'rfq_resolved')!;
  t.same(resolved.takerFill, { portfolioId: 1, nonce: 77n, deadline: Math.floor(h.ts / 1000) + 60, signature: SIG });
  t.ok(filled.events.some((e) => e.type === 'trade'), 'and the trade');
});

t.test('cash commands say what moved', async (t) => {
  const h = listedVenue();
  h.ok({ type: 'create_portfolio', owner: ALICE });
  const dep = h.ok({ type: 'deposit', owner: ALICE, portfolioId: 1, amount: usdc(500) });
  t.match(dep.events.find((e) => e.type === 'cash'), { type: 'cash', kind: 'faucet', owner: ALICE, portfolioId: 1, toPortfolioId: null, amount: usdc(500), withdrawalId: null });
  const w = h.ok({ type: 'withdraw', owner: ALICE, portfolioId: 1, amount: usdc(100) });
  t.match(w.events.find((e) => e.type === 'cash'), { type: 'cash', kind: 'withdrawal', owner: ALICE, portfolioId: 1, amount: usdc(100), withdrawalId: String(h.seq) }, 'a withdrawal is named by its command');
  const tr = h.ok({ type: 'transfer', owner: ALICE, fromPortfolioId: 1, toPortfolioId: 0, amount: usdc(50) });
  t.match(tr.events.find((e) => e.type === 'cash'), { type: 'cash', kind: 'transfer', portfolioId: 1, toPortfolioId: 0, amount: usdc(50) });
  const refused = h.run({ type: 'withdraw', owner: ALICE, portfolioId: 1, amount: usdc(10_000) });
  t.same([refused.ok, refused.events.length], [false, 0], 'a refused one says nothing');
});

t.test('an on-chain deposit the venue refuses is taken once, with its refusal; a provider report is not', async (t) => {
  const h = listedVenue();
  const tx = `0x${'cd'.repeat(32)}` as Hex;
  // Portfolio 7 does not exist: the deposit cannot be credited.
  const chain = h.ok({ type: 'chain_event', id: '10143:0xcd:0', event: { kind: 'deposit', owner: ALICE, portfolioId: 7, amount: usdc(5), txHash: tx, depositId: 3n } });
  const e = chain.events.find((x): x is ChainEventEvent => x.type === 'chain_event')!;
  t.equal(e.refused, 'unknown_portfolio', 'taken, with the refusal (its tokens go back on chain)');
  t.equal(chain.events.filter((x) => x.type === 'portfolio').length, 0, 'nothing credited');
  const again = h.run({ type: 'chain_event', id: '10143:0xcd:0', event: { kind: 'deposit', owner: ALICE, portfolioId: 7, amount: usdc(5), txHash: tx, depositId: 3n } });
  t.match(again, { ok: false, rejection: { code: 'chain_event_duplicate' } }, 'once only');
  const report = h.run({ type: 'chain_event', id: 'provider-1', event: { kind: 'deposit', owner: ALICE, portfolioId: 7, amount: usdc(5), txHash: tx } });
  t.match(report, { ok: false, rejection: { code: 'unknown_portfolio' } }, "a provider's report without a deposit id is refused and may come again");
});

t.test('a resting order never fills at or after its good-till time, however late the clock comes', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.fund(BOB, usdc(100_000));
  const goodTill = Math.floor(h.ts / 1000) + 60;
  const ask = h.order(ALICE, call, false, 2000, 1, { expiry: goodTill });
  h.ok({ type: 'place', orders: [ask] });
  // No clock command since: a taker a minute and a half later.
  const take = h.ok({ type: 'place', orders: [h.order(BOB, call, true, 2000, 1)] }, 90_000);
  t.equal(take.events.filter((e): e is TradeEvent => e.type === 'trade').length, 0, 'no fill');
  const expired = orderEvents(take.events).find((e) => e.orderId === ask.orderId);
  t.match(expired, { status: 'expired', cancelReason: 'expiry' }, 'the maker left the book first, in the same command');
  t.match(orderEvents(take.events).at(-1), { status: 'open' }, 'the taker rests instead');
  // The same stream replays to the same state.
  const replayed = Venue.create(h.venue.state.config);
  for (const c of h.log) replayed.apply(c);
  t.equal(replayed.stateHash(), h.venue.stateHash());
});

t.test('a wallet that stops being a market maker no longer trades in portfolio 0', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.fund(MM, usdc(1_000_000), 0);
  const quote = h.order(MM, call, false, 2000, 1, { portfolioId: 0 });
  h.fund(ALICE, usdc(100_000));
  const own = h.order(ALICE, call, false, 2100, 1);
  h.ok({ type: 'place', orders: [quote] });
  h.ok({ type: 'place', orders: [own] });
  const revoked = h.ok({ type: 'set_mmm', address: MM, isMmm: false });
  t.match(orderEvents(revoked.events), [{ orderId: quote.orderId, status: 'cancelled', cancelReason: 'admin', reason: 'mmm_revoked' }], "its portfolio-0 orders are cancelled, nobody else's");
  t.match(h.run({ type: 'place', orders: [h.order(MM, call, false, 2000, 1, { portfolioId: 0 })] }), { ok: false, rejection: { code: 'portfolio_reserved' } }, 'and new ones refused');
});

t.test('a liquidation never trades a series past its expiry (the clock settles it)', async (t) => {
  const h = listedVenue({ takerFeeRate: 0n, makerFeeRate: 0n });
  const s = h.venue.state;
  const calls = [...s.series.values()].filter((a) => a.spec.pairId === BTC && a.spec.isCall && !a.settled);
  const expiries = [...new Set(calls.map((a) => a.spec.expiry))].sort((a, b) => a - b);
  const nearest = (expiry: number) => calls.filter((a) => a.spec.expiry === expiry).sort((a, b) => (a.spec.strike < b.spec.strike ? -1 : 1))[0]!.spec.seriesId;
  const soon = nearest(expiries[0]!);
  const later = nearest(expiries[1]!);
  h.fund(ALICE, usdc(80_000));
  h.fund(BOB, usdc(10_000_000));
  for (const id of [soon, later]) {
    h.ok({ type: 'place', orders: [h.order(BOB, id, true, 30_000, 1)] });
    h.ok({ type: 'place', orders: [h.order(ALICE, id, false, 30_000, 1)] });
  }
  // Past the nearest expiry, no clock command yet: the spot jumps and ALICE is liquidated.
  const toExpiry = expiries[0]! * 1000 - h.ts + 60_000;
  const shock = h.ok({ type: 'oracle', pairId: BTC, spot: 160_000n * WAD, volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] }, toExpiry);
  const liquidation = shock.events.find((e) => e.type === 'liquidation' && e.owner === ALICE);
  t.ok(liquidation, 'the account is liquidated');
  const traded = shock.events.filter((e): e is TradeEvent => e.type === 'trade').map((e) => e.seriesId);
  t.notOk(traded.includes(soon), 'nothing of the expired series traded');
  t.same(s.accounts.portfolio(ALICE, 1)!.positions.has(soon), true, 'its position waits for settlement');
});

t.test('a format-2 snapshot (no signed fields) restores as format 3, checked against its own bytes', async (t) => {
  const h = listedVenue();
  const call = h.atm(BTC, true);
  h.fund(ALICE, usdc(100_000));
  h.ok({ type: 'place', orders: [h.order(ALICE, call, false, 2000, 1), h.order(ALICE, call, false, 2100, 1)] });
  const now = h.venue.serialize();
  const dump = JSON.parse(new TextDecoder().decode(now));
  dump.format = 2;
  for (const x of dump.series) for (const r of x.records) delete r.signed;
  const old = new TextEncoder().encode(JSON.stringify(dump));
  const restored = Venue.restore(old);
  t.equal(new TextDecoder().decode(restored.serialize()), new TextDecoder().decode(now), 'the same state, in format 3');
  t.not(restored.restoredHash(), restored.stateHash(), 'its recorded hash is checked against the bytes it came as');
});
