/**
 * One set of order rules (architecture.md rule 5): for each order rule, an order breaking it
 * is posted to the gateway (refused early, before its signature is recovered) and applied to
 * a copy of the same venue as an engine command; the gateway's `details.reason` must be the
 * engine's code. A gateway check restating a rule (and drifting from it) fails this test; a
 * rule changed in the engine changes the gateway's answer with it.
 *
 * Signed bodies carry a signature of the right shape that is not the wallet's: an order the
 * rules accept gets past the early checks to the signature check (`bad_signature` or
 * `wrong_signer`).
 */
import t, { type Test } from 'tap';
import { keccak256, toHex, type Hex } from 'viem';
import { startTestApp } from '../support/testApp.ts';
import type { EngineFront } from '../../../gateway/services.ts';
import { liveSeries, place, post, trader, wad } from './ordersFixture.ts';
import { Venue } from '../../../engine/venue.ts';
import type { CancelOrder, PlaceOrder } from '../../../engine/commands.ts';

const app = await startTestApp({ memory: true, startAt: Date.UTC(2026, 0, 5, 12, 0, 0) });
t.teardown(() => app.close());
const state = app.app.engine.state;
const series = liveSeries(app);
const pair = state.pairs.get(series.spec.pairId)!;
const alice = await trader(app, 'precheck-alice', { deposit: 2_000_000 });
const carol = await trader(app, 'precheck-carol', { deposit: 0 });

// One resting order of alice's: its nonce is used, and cancels name it.
const resting = await place(app, alice, { seriesId: series.spec.seriesId, isBuy: true, size: '0.5', price: '100' });
t.equal(resting.relay.status, 200, 'a resting order', { body: resting.relay.body });
const restingId = resting.typed.body.orderId as Hex;
const usedNonce = BigInt(resting.signed['nonce'] as string);

const NO_SIGNATURE = '0x' + '11'.repeat(64) + '1b';
const nowSec = () => Math.floor(app.clock.now / 1000);
let counter = 0;

type Order = { seriesId: Hex; portfolioId: number; tick: number; size: bigint; expiry: number; nonce: bigint; deadline: number };
const good = (): Order => ({ seriesId: series.spec.seriesId, portfolioId: alice.portfolioId, tick: 9000, size: wad(0.1), expiry: series.spec.expiry, nonce: 1_000_000n + BigInt(++counter), deadline: nowSec() + 300 });

/** The engine's answer to the same order: a copy of the venue applies it at the gateway's time. */
function engineCode(body: { type: 'place'; orders: PlaceOrder[] } | { type: 'cancel'; cancels: CancelOrder[] }): string | null {
  const copy = Venue.restore(app.app.engine.serialize());
  const r = copy.apply({ ...body, seq: state.seq + 1, ts: app.clock.now });
  return r.ok ? null : r.rejection.code;
}

/** The gateway's early answer: its reason, or null when every rule passed (the dummy signature is then refused). */
function gatewayCode(reply: { status: number; body: any }): string | null {
  const reason = reply.body?.details?.reason as string | undefined;
  return reason === 'bad_signature' || reason === 'wrong_signer' ? null : (reason ?? `status ${reply.status}: ${JSON.stringify(reply.body)}`);
}

async function comparePlace(t: Test, name: string, o: Order, expected: string | null, token = alice.token): Promise<void> {
  const reply = await post(app, '/api/mm/orders/place', token, {
    seriesId: o.seriesId,
    portfolioId: String(o.portfolioId),
    isBuy: true,
    tick: o.tick,
    size: o.size.toString(),
    expiry: o.expiry,
    nonce: o.nonce.toString(),
    deadline: String(o.deadline),
    signature: NO_SIGNATURE,
  });
  const engine = engineCode({ type: 'place', orders: [{ ...o, orderId: keccak256(toHex(`precheck-${++counter}`)), owner: alice.address, isBuy: true }] });
  t.equal(engine, expected, `${name}: the order breaks the rule in the engine`);
  t.equal(gatewayCode(reply), engine, `${name}: the gateway's early refusal is the engine's`, { body: reply.body });
}

const rules: readonly { name: string; order: () => Order; expected: string | null }[] = [
  { name: 'every rule passes', order: good, expected: null },
  { name: 'unknown series', order: () => ({ ...good(), seriesId: keccak256(toHex('no such series')) }), expected: 'unknown_series' },
  { name: 'tick 0', order: () => ({ ...good(), tick: 0 }), expected: 'zero_price' },
  { name: 'off the size step', order: () => ({ ...good(), size: pair.sizeStep * 3n + pair.sizeStep / 2n }), expected: 'off_size_step' },
  { name: 'above the maximum size', order: () => ({ ...good(), size: (state.maxOrderLots + 1n) * pair.sizeStep }), expected: 'size_too_large' },
  { name: 'deadline passed', order: () => ({ ...good(), deadline: nowSec() - 1 }), expected: 'deadline_passed' },
  { name: 'order expiry passed', order: () => ({ ...good(), expiry: nowSec() }), expected: 'order_expiry_passed' },
  { name: 'nonce used', order: () => ({ ...good(), nonce: usedNonce }), expected: 'nonce_used' },
  { name: "portfolio 0 of a wallet that is not an MMM's", order: () => ({ ...good(), portfolioId: 0 }), expected: 'portfolio_reserved' },
  { name: 'unknown portfolio', order: () => ({ ...good(), portfolioId: 4242 }), expected: 'unknown_portfolio' },
];

for (const r of rules) t.test(`place: ${r.name}`, async (t) => comparePlace(t, r.name, r.order(), r.expected));

t.test('place: below the minimum size', async (t) => {
  // The venue's pairs have a minimum of one size step (no signed size is below it); for this
  // row the pair's minimum is raised to two steps, and put back after.
  const mutable = pair as { minSize: bigint };
  const before = mutable.minSize;
  t.ok(pair.sizeStep > 1n && before === pair.sizeStep, 'the minimum is one size step');
  mutable.minSize = pair.sizeStep * 2n;
  t.teardown(() => {
    mutable.minSize = before;
  });
  await comparePlace(t, 'below the minimum size', { ...good(), size: pair.sizeStep }, 'below_min_size');
});

async function compareCancel(t: Test, name: string, c: { orderId: Hex; nonce: bigint; deadline: number; owner: typeof alice }, expected: string | null): Promise<void> {
  const reply = await post(app, '/api/mm/orders/cancel-batch', c.owner.token, { cancellations: [{ orderId: c.orderId, nonce: c.nonce.toString(), deadline: String(c.deadline), signature: NO_SIGNATURE }] });
  const engine = engineCode({ type: 'cancel', cancels: [{ orderId: c.orderId, owner: c.owner.address, nonce: c.nonce, deadline: c.deadline }] });
  t.equal(engine, expected, `${name}: the cancel breaks the rule in the engine`);
  // Someone else's order answers like an unknown one at the edge (order ids do not leak).
  const gateway = gatewayCode(reply);
  t.equal(gateway === 'unknown_order' && engine === 'not_owner' ? 'not_owner' : gateway, engine, `${name}: the gateway's early refusal is the engine's`, { body: reply.body });
}

t.test('cancel: every rule passes', async (t) => compareCancel(t, 'passes', { orderId: restingId, nonce: 2_000_000n, deadline: nowSec() + 300, owner: alice }, null));
t.test('cancel: deadline passed', async (t) => compareCancel(t, 'deadline', { orderId: restingId, nonce: 2_000_001n, deadline: nowSec() - 1, owner: alice }, 'deadline_passed'));
t.test('cancel: nonce used', async (t) => compareCancel(t, 'nonce', { orderId: restingId, nonce: usedNonce, deadline: nowSec() + 300, owner: alice }, 'nonce_used'));
t.test("cancel: another wallet's order", async (t) => compareCancel(t, 'owner', { orderId: restingId, nonce: 1n, deadline: nowSec() + 300, owner: carol }, 'not_owner'));


t.test('the gateway has no order rule of its own: an engine pre-check that accepts everything lets every row through', async (t) => {
  const { checkPlace } = await import('../../../gateway/orders/entryChecks.ts');
  const { parsePlace } = await import('../../../gateway/orders/orderEntries.ts');
  const { orderContext } = await import('../../../gateway/orders/orderContext.ts');
  // The gateway reaches the engine's pre-check through the front door (services.venue): one that accepts everything.
  const real = orderContext(app.app.services);
  const venue: EngineFront = { precheck: () => null, precheckEntries: () => null, nextOrderNonce: (o) => real.services.venue.nextOrderNonce(o), orderNonceUsed: (o, n) => real.services.venue.orderNonceUsed(o, n), seq: real.services.venue.seq, now: real.services.venue.now, config: real.services.venue.config, whatIf: (...a) => real.services.venue.whatIf(...a) };
  const ctx = { ...real, services: { ...real.services, venue } };
  const now = { ms: app.clock.now, sec: nowSec() };
  const rows = [...rules, { name: 'below the minimum size', order: () => ({ ...good(), size: 0n }), expected: 'below_min_size' }];
  let checked = 0;
  for (const r of rows) {
    // A used nonce is also refused by the gateway's own nonce check (it knows the order-nonce store's floor too).
    if (r.expected === 'nonce_used') continue;
    const o = r.order();
    const entry = parsePlace({ ...o, portfolioId: String(o.portfolioId), isBuy: true, size: o.size.toString(), nonce: o.nonce.toString(), deadline: String(o.deadline), signature: NO_SIGNATURE }, '');
    if (!entry.ok) {
      t.equal(o.size, 0n, `${r.name}: only a zero size is refused by the parser`);
      continue;
    }
    const result = checkPlace(ctx, alice.address, entry.value, now);
    t.ok(result.ok, `${r.name}: passes the gateway when the engine's rules pass`, { result });
    checked++;
  }
  t.ok(checked >= 9, 'the rows were checked');
});

t.test('a whole request: a nonce twice, an order named twice (the engine rule, the words clients saw)', async (t) => {
  const token = alice.token;
  const entry = (o: Order) => ({ seriesId: o.seriesId, portfolioId: String(o.portfolioId), isBuy: true, tick: o.tick, size: o.size.toString(), expiry: o.expiry, nonce: o.nonce.toString(), deadline: String(o.deadline), signature: NO_SIGNATURE });
  const first = good();
  const twice = await post(app, '/api/mm/orders/place-batch', token, { orders: [entry(first), entry({ ...good(), tick: 9100, nonce: first.nonce })] });
  t.equal(twice.status, 400);
  t.same(twice.body, {
    code: 'invalid_argument',
    message: `orders[1].nonce: nonce ${first.nonce} appears twice in this request`,
    details: { error: 'OrderValidationError', location: 'body', field: 'orders[1].nonce', reason: 'duplicate_in_batch' },
  });
  const named = await post(app, '/api/mm/orders/cancel-batch', token, { cancellations: [{ orderId: restingId }, { orderId: restingId }] });
  t.equal(named.status, 400);
  t.same(named.body, {
    code: 'invalid_argument',
    message: `cancellations[1].orderId: order ${restingId} is named twice in this request`,
    details: { error: 'OrderValidationError', location: 'body', field: 'cancellations[1].orderId', reason: 'duplicate_in_batch' },
  });
});

// Last: the clock passes the series' expiry (no clock command, so it is not settled yet).
t.test('place: series expired', async (t) => {
  app.clock.now = (series.spec.expiry + 1) * 1000;
  const token = await app.session(alice.address); // the first session has expired by then
  await comparePlace(t, 'series expired', { ...good(), expiry: series.spec.expiry + 100, deadline: nowSec() + 300 }, 'series_expired', token);
});
