/**
 * `POST /api/strategies/execute` against the real server (extensions.md "Strategies"): two
 * phases like place-batch, one engine command; a butterfly that fills; one whose middle leg
 * lacks size and changes nothing (books, balances, nonces: the engine's state hash); legs
 * across two expiries; a cash and a margin refusal of the whole package (the margin one
 * changes nothing, though a leg alone would fit); both forms; bad bodies.
 */
import t, { type Test } from 'tap';
import { startTestApp, request, type JsonResponse } from '../support/testApp.ts';
import { liveSeries, signServed, trader, wad, type Trader } from './ordersFixture.ts';
import { placeDirect } from '../auth/venueOrders.ts';
import { pairIdOf, Venue } from '../../../engine/index.ts';
import { decodeFunctionData } from 'viem';
import { orderBookAbi } from '../../../gateway/abi.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const maker = await trader(app, 'strategy exec maker', { deposit: 10_000_000 });
const taker = await trader(app, 'strategy exec taker', { deposit: 1_000_000 });
const poor = await trader(app, 'strategy exec poor', { deposit: 100 });
const cookie = await app.session(taker.address, 'earlier');
const [low, mid, high] = [-1, 0, 1].map((k) => liveSeries(app, true, 'BTC-USDC', k)) as [ReturnType<typeof liveSeries>, ReturnType<typeof liveSeries>, ReturnType<typeof liveSeries>];
const engine = app.app.engine;

const rest = (series: typeof low, isBuy: boolean, price: number, size: number) => placeDirect(app.app, { owner: maker.address, portfolioId: maker.portfolioId, series, isBuy, price: wad(price), size: wad(size) });

const execute = (who: Trader, body: unknown, form: 'current' | 'earlier' = 'current'): Promise<JsonResponse> =>
  form === 'current' ? request(`${app.url}/api/strategies/execute`, { body, token: who.token }) : request(`${app.url}/strategies/execute`, { body, headers: { cookie: `session=${cookie}` } });

/** Both phases: the typed data, every leg signed, the relay reply. */
async function run(who: Trader, legs: unknown[], form: 'current' | 'earlier' = 'current'): Promise<{ typed: JsonResponse; relay: JsonResponse }> {
  const typed = await execute(who, { portfolioId: who.portfolioId, legs }, form);
  if (typed.status !== 200) return { typed, relay: typed };
  const signed = [];
  for (const p of typed.body.placements) signed.push(await signServed(who.account, p.typedData));
  return { typed, relay: await execute(who, { portfolioId: who.portfolioId, legs: signed }, form) };
}

/**
 * Phase one, every leg signed, then phase two refused 400; checks that the refusal changed
 * nothing (the engine's state hash: books, balances, positions; every leg's nonce unused).
 */
async function refusedWhole(t: Test, who: Trader, legs: unknown[]): Promise<JsonResponse> {
  const typed = await execute(who, { portfolioId: who.portfolioId, legs });
  t.equal(typed.status, 200, 'phase one');
  const signed = [];
  for (const p of typed.body.placements) signed.push(await signServed(who.account, p.typedData));
  const before = Venue.restore(engine.serialize());
  const r = await execute(who, { portfolioId: who.portfolioId, legs: signed });
  t.equal(r.status, 400, 'refused', { body: r.body });
  // A refused command still moves seq and the clock: move a copy of the state before it the same way, and compare.
  const after = Venue.restore(engine.serialize());
  for (const v of [before, after]) v.apply({ type: 'clock', seq: engine.seq + 1, ts: engine.now });
  t.equal(after.stateHash(), before.stateHash(), 'the state hash is as if the command had not been sent');
  for (const s of signed) t.notOk(engine.orderNonceUsed(who.address, BigInt(s['nonce'] as string)), 'nonce unused');
  return r;
}

const leg = (series: typeof low, isBuy: boolean, price: string, size: string) => ({ seriesId: series.spec.seriesId, isBuy, size, price });
const butterfly = (size: number) => [leg(low, true, '3100', String(size)), leg(mid, false, '1400', String(2 * size)), leg(high, true, '600', String(size))];

t.test('a butterfly that fills: every leg in full, one strategy id, both phases', async (t) => {
  await rest(low, false, 3000, 1);
  await rest(mid, true, 1500, 2);
  await rest(high, false, 500, 1);
  const { typed, relay } = await run(taker, butterfly(1));
  t.equal(typed.status, 200, 'phase one', { body: typed.body });
  t.match(typed.body, { mode: 'typed_data', operation: 'place_orders_batch', count: 3, strategyId: /^0x[0-9a-f]{64}$/ });
  t.same(typed.body.placements.map((p: any) => p.timeInForce), ['FOK', 'FOK', 'FOK'], 'legs are FOK orders');
  t.equal(relay.status, 200, 'phase two', { body: relay.body });
  t.equal(relay.body.strategyId, typed.body.strategyId);
  t.match(relay.body, { mode: 'relay', relay: { to: /^0x/ }, count: 3 });
  t.same(relay.body.orders.map((o: any) => [o.orderId, o.status, o.filled]), typed.body.placements.map((p: any, i: number) => [p.orderId, 'filled', wad(i === 1 ? 2 : 1).toString()]));
  t.same(relay.body.orders.map((o: any) => o.trades[0].price), [wad(3000), wad(1500), wad(500)].map(String), "at the makers' prices");
  const call = decodeFunctionData({ abi: orderBookAbi, data: relay.body.relay.calldata });
  t.equal(call.functionName, 'batchPlaceOrders', 'the relay calldata is batchPlaceOrders');
  t.same((call.args![0] as readonly { seriesId: string }[]).map((o) => o.seriesId), [low, mid, high].map((x) => x.spec.seriesId), 'of the three legs in order');
});

t.test('a butterfly whose middle leg lacks size changes nothing: books, balances, nonces', async (t) => {
  await rest(low, false, 3000, 1);
  await rest(mid, true, 1500, 1);
  await rest(high, false, 500, 1);
  const r = await refusedWhole(t, taker, butterfly(1));
  t.match(r.body, { code: 'failed_precondition', details: { reason: 'strategy_not_fillable', leg: 1, seriesId: mid.spec.seriesId } });
});

t.test('legs across two expiries (a calendar), the earlier form', async (t) => {
  const minExpiry = Math.floor(app.clock.now / 1000) + 86_400;
  const calls = [...engine.state.series.values()].filter((s) => s.spec.pairId === pairIdOf('BTC-USDC') && s.spec.isCall && !s.settled && s.spec.expiry >= minExpiry && s.spec.strike === mid.spec.strike);
  const far = calls.find((s) => s.spec.expiry > mid.spec.expiry)!;
  t.ok(far, 'a later expiry at the same strike');
  await rest(mid, true, 1500, 1);
  await rest(far, false, 2500, 1);
  const { relay } = await run(taker, [leg(mid, false, '1500', '1'), leg(far, true, '2500', '1')], 'earlier');
  t.equal(relay.status, 200, 'filled', { body: relay.body });
  t.same(relay.body.orders.map((o: any) => o.status), ['filled', 'filled']);
});

t.test('margin is checked once for the package: a refusal refuses every leg', async (t) => {
  await rest(low, false, 3000, 1);
  await rest(high, false, 500, 1);
  const { typed, relay } = await run(poor, [leg(low, true, '3100', '1'), leg(high, true, '600', '1')]);
  t.equal(typed.status, 200, 'phase one does not judge risk');
  t.equal(relay.status, 400, 'refused', { body: relay.body });
  t.match(relay.body, { code: 'failed_precondition', details: { reason: 'insufficient_cash' } });
  t.equal(engine.state.accounts.portfolio(poor.address, poor.portfolioId)!.positions.size, 0, 'no leg filled');
});

t.test('a package whose margin the portfolio cannot carry is refused whole, though its bought leg alone fits', async (t) => {
  await rest(low, false, 3000, 1);
  await rest(mid, true, 1500, 2);
  // Cash pays the bought leg (3,000 USDC) but not the margin of the net short call the package leaves.
  const thin = await trader(app, 'strategy exec thin', { deposit: 5_000 });
  const r = await refusedWhole(t, thin, [leg(low, true, '3100', '1'), leg(mid, false, '1400', '2')]);
  t.match(r.body, { code: 'failed_precondition', details: { reason: 'insufficient_margin' } });
  const { relay } = await run(thin, [leg(low, true, '3100', '1')]);
  t.equal(relay.status, 200, 'the bought leg alone fills', { body: relay.body });
  t.same(relay.body.orders.map((o: any) => o.status), ['filled']);
});

t.test('bad bodies, both forms', async (t) => {
  const cases: [unknown, number, string, string][] = [
    [{ portfolioId: taker.portfolioId, legs: [] }, 400, 'invalid_argument', 'legs'],
    [{ portfolioId: taker.portfolioId, legs: [leg(low, true, '1', '1'), leg(low, false, '1', '1')] }, 400, 'invalid_argument', 'legs[1].seriesId'],
    [{ portfolioId: taker.portfolioId, legs: [leg(low, true, '1', '1'), { ...leg(mid, true, '1', '1'), timeInForce: 'GTC' }] }, 400, 'invalid_argument', 'legs[1].timeInForce'],
    [{ portfolioId: taker.portfolioId, legs: [{ ...leg(low, true, '1', '1'), seriesId: `0x${'1'.repeat(64)}` }] }, 404, 'not_found', ''],
    [{ portfolioId: 77, legs: [leg(low, true, '1', '1')] }, 404, 'not_found', ''],
    [{ legs: [leg(low, true, '1', '1')] }, 400, 'invalid_argument', 'portfolioId'],
  ];
  for (const [body, status, code, field] of cases) {
    const c = await execute(taker, body);
    t.equal(c.status, status, JSON.stringify(body), { body: c.body });
    t.equal(c.body.code, code);
    if (field !== '') t.equal(c.body.details.field, field);
    const e = await execute(taker, body, 'earlier');
    t.equal(e.status, status, 'earlier form');
    t.equal(e.body.message, c.body.message);
  }
  t.equal((await request(`${app.url}/api/strategies/execute`, { body: { portfolioId: 1, legs: butterfly(1) } })).status, 401);
  t.match(await request(`${app.url}/strategies/execute`, { body: { portfolioId: 1, legs: butterfly(1) } }).then((x) => [x.status, x.body]), [401, { error: 'unauthorized' }], 'earlier form');
});
