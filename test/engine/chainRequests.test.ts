/**
 * A wallet's requests made on chain as engine commands (`chain_event`, docs/chain.md "Leaving
 * without the venue"): a nonce floor cancels the wallet's open orders below it and refuses
 * lower nonces; a market maker's nonce increment; a forced withdrawal paid up to free
 * collateral, or refused, and one the vault executed without the venue, also after the venue
 * took the same request in; each taken once by its id, and all of it through a snapshot.
 */
import t from 'tap';
import { Venue, type Hex, type OrderEvent } from '../../engine/index.ts';
import { listedVenue, ALICE, BOB, BTC, usdc } from './support/venueFixture.ts';

const TX = `0x${'ab'.repeat(32)}` as Hex;
let n = 0;
const id = () => `10143:${TX}:${++n}`;

t.test('a nonce floor: open orders below it cancelled (nonce_floor), lower nonces refused, higher ones trade', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(1_000_000));
  const call = h.atm(BTC, true);
  const low = h.order(ALICE, call, true, 1, 0.1, { nonce: 10n });
  const high = h.order(ALICE, call, true, 1, 0.1, { nonce: 20n });
  h.ok({ type: 'place', orders: [low, high] });
  const r = h.ok({ type: 'chain_event', id: id(), event: { kind: 'nonce_floor', owner: ALICE, floor: 15n, txHash: TX } });
  const cancelled = r.events.filter((e): e is OrderEvent => e.type === 'order' && e.status === 'cancelled');
  t.same(cancelled.map((e) => [e.orderId, e.cancelReason, e.reason]), [[low.orderId, 'nonce_floor', 'cancelled_by_nonce_floor']]);
  t.ok(h.venue.state.orderIndex.has(high.orderId), 'the order at nonce 20 rests on');
  t.match(r.events.find((e) => e.type === 'chain_event'), { type: 'chain_event', refused: null });
  const below = h.run({ type: 'place', orders: [h.order(ALICE, call, true, 1, 0.1, { nonce: 12n })] });
  t.equal(below.ok, false);
  t.match(below.ok ? null : below.rejection, { code: 'nonce_used' }, 'a nonce below the floor, never used: refused as used');
  h.ok({ type: 'place', orders: [h.order(ALICE, call, true, 1, 0.1, { nonce: 15n })] });
  t.pass('at the floor: taken');
  const restored = Venue.restore(h.venue.serialize());
  t.equal(restored.state.accounts.nonces[restored.state.accounts.walletOf(ALICE)]!.isUsed(14n), true, 'the floor survives a snapshot');
});

t.test("a market maker's nonce increment; another wallet's is refused not_mmm", async (t) => {
  const h = listedVenue();
  h.ok({ type: 'set_mmm', address: BOB, isMmm: true });
  const r = h.ok({ type: 'chain_event', id: id(), event: { kind: 'mmm_nonce_request', mmm: BOB, nonce: 0n, txHash: TX } });
  t.match(r.events.find((e) => e.type === 'mmm_nonce'), { address: BOB, nonce: 1n });
  t.equal(h.venue.state.accounts.mmmNonce[h.venue.state.accounts.walletOf(BOB)], 1n);
  const other = h.ok({ type: 'chain_event', id: id(), event: { kind: 'mmm_nonce_request', mmm: ALICE, nonce: 0n, txHash: TX } });
  t.match(other.events, [{ type: 'chain_event', refused: 'not_mmm' }], 'taken, refused in its event, nothing else');
  const again = `10143:${TX}:${n}`;
  t.match(h.run({ type: 'chain_event', id: again, event: { kind: 'mmm_nonce_request', mmm: BOB, nonce: 0n, txHash: TX } }), { ok: false, rejection: { code: 'chain_event_duplicate' } }, 'each id once');
});

t.test('forced withdrawals: paid up to free collateral or refused; an execution on chain taken as the chain paid it', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(1_000));
  const deposit = () => h.venue.state.accounts.depositOf(h.venue.state.accounts.portfolio(ALICE, 1)!);
  const request = (requestId: bigint, amount: bigint) => h.ok({ type: 'chain_event', id: id(), event: { kind: 'withdrawal_request', owner: ALICE, portfolioId: 1, amount, requestId, txHash: TX } });
  t.match(request(1n, usdc(300)).events.find((e) => e.type === 'chain_event'), { type: 'chain_event', refused: null, paid: usdc(300) });
  t.equal(deposit(), usdc(700));
  t.match(request(2n, usdc(5_000)).events.find((e) => e.type === 'chain_event'), { type: 'chain_event', refused: null, paid: usdc(700) }, 'beyond the free collateral: what is free');
  t.match(request(3n, usdc(1)).events.find((e) => e.type === 'chain_event'), { type: 'chain_event', refused: 'insufficient_funds', paid: 0n });
  t.match(h.ok({ type: 'chain_event', id: id(), event: { kind: 'withdrawal_request', owner: ALICE, portfolioId: 9, amount: 1n, requestId: 4n, txHash: TX } }).events.find((e) => e.type === 'chain_event'), { refused: 'unknown_portfolio', paid: 0n });

  h.fund(ALICE, usdc(1_000));
  // The vault executed request 5 without the venue (its own cash then: 400 of the 500 asked for).
  h.ok({ type: 'chain_event', id: id(), event: { kind: 'forced_withdrawal_executed', owner: ALICE, portfolioId: 1, requestId: 5n, paid: usdc(400), txHash: TX } });
  t.equal(deposit(), usdc(600), 'the chain paid it: it leaves the venue too');
  t.match(h.ok({ type: 'chain_event', id: id(), event: { kind: 'withdrawal_request', owner: ALICE, portfolioId: 1, amount: usdc(500), requestId: 5n, txHash: TX } }).events.find((e) => e.type === 'chain_event'), { refused: 'forced_withdrawal_executed', paid: 0n }, 'its request, seen after: nothing more paid');
  t.equal(deposit(), usdc(600));
  // Request 6 taken in (200 paid), then found executed on chain first (150): the stream's take was skipped.
  request(6n, usdc(200));
  t.equal(deposit(), usdc(400));
  h.ok({ type: 'chain_event', id: id(), event: { kind: 'forced_withdrawal_executed', owner: ALICE, portfolioId: 1, requestId: 6n, paid: usdc(150), txHash: TX } });
  t.equal(deposit(), usdc(450), 'what the venue took comes back, what the chain paid goes');
  t.equal(h.venue.state.forcedExecutions, 2);
  const restored = Venue.restore(h.venue.serialize());
  t.equal(restored.state.forcedExecutions, 2, 'through a snapshot');
  t.same([...restored.state.forcedWithdrawals], [...h.venue.state.forcedWithdrawals]);
  t.equal(restored.stateHash(), h.venue.stateHash());
});

t.test('orders sent to the chain directly: entered as the route would, every odd value refused as a rule, never thrown', async (t) => {
  const h = listedVenue();
  h.fund(ALICE, usdc(1_000_000));
  const call = h.atm(BTC, true);
  const direct = (places: ReturnType<typeof h.order>[]) => h.ok({ type: 'chain_event', id: id(), event: { kind: 'direct_orders', cancels: [], places, replace: false, txHash: TX } }).events.find((e) => e.type === 'chain_event');
  const good = h.order(ALICE, call, true, 1, 0.1);
  t.match(direct([good]), { refused: null });
  t.ok(h.venue.state.orderIndex.has(good.orderId), 'rests in the book');
  t.match(direct([good]), { refused: 'nonce_used' }, 'the same order again: refused (its nonce is used), nothing changes');
  const odd: [string, Partial<ReturnType<typeof h.order>>][] = [
    ['a portfolio id beyond the engine', { portfolioId: -1 }],
    ['size 0', { size: 0n }],
    ['the highest tick', { tick: 2 ** 32 - 1 }],
    ['expiry 0', { expiry: 0 }],
    ['a deadline passed', { deadline: 1 }],
    ['an unknown series', { seriesId: `0x${'77'.repeat(32)}` as Hex }],
    ['a huge size', { size: 2n ** 128n - 1n }],
  ];
  for (const [what, over] of odd) {
    const e = direct([h.order(ALICE, call, true, 1, 0.1, over)]);
    t.ok(e !== undefined && (e as { refused: string | null }).refused !== null, `${what}: refused (${(e as { refused: string | null } | undefined)?.refused})`);
  }
  const big = h.order(ALICE, call, true, 1, 0.1, { deadline: Number.MAX_SAFE_INTEGER, signedDeadline: 2n ** 200n });
  t.match(direct([big]), { refused: null }, 'a signed deadline beyond 2^53 is kept beside the capped one');
});
