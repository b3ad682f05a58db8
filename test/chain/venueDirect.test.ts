/**
 * Wallets writing to the contracts directly (docs/chain.md "Writing to the contracts"): a
 * signed order a wallet sends to `orderBook.placeOrderSigned` itself, never to the venue's
 * routes, is recovered and logged by the contract, taken in by the indexer as the REST route's
 * place command, rests in the book and trades, and settles like any order; the same call sent
 * again is taken once more and changes nothing; a cancel sent by `batchCancelOrders` cancels;
 * a signature that recovers to nothing reverts on chain. A taker's signed RFQ fill sent to
 * `rfq.fillQuote` itself fills the quote and settles.
 */
import t from 'tap';
import { hashTypedData, zeroAddress, type Hex } from 'viem';
import { orderBookAbi, rfqAbi } from '../../chain/artifacts.ts';
import { orderBookDomain, placeOrderTypes, rfqDomain } from '../../workers/eip712/types.ts';
import { signRfqQuote, type RfqQuoteFields } from '../../client/signing.ts';
import { request } from '../gateway/support/testApp.ts';
import { liveSeries, place, post, signServed, trader, wad } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(240_000);

t.test('an order placed only on chain appears in the book and trades; a cancel sent on chain cancels', async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const config = app.app.services.config;
  const seriesId = liveSeries(app).spec.seriesId;
  const alice = await trader(app, 'direct-alice', { deposit: 100_000 });
  const bob = await trader(app, 'direct-bob', { deposit: 100_000 });
  await chain.fund(alice.address);
  const ob = { address: chain.addresses.orderBook, abi: orderBookAbi } as const;
  const send = async (functionName: string, args: readonly unknown[]) => {
    const hash = await chain.wallet(alice.account).writeContract({ ...ob, functionName, args } as never);
    return chain.client.waitForTransactionReceipt({ hash });
  };

  // The typed data the venue serves, signed by the wallet, and sent to the chain instead of the venue.
  const typed = await post(app, '/api/mm/orders/place', alice.token, { portfolioId: alice.portfolioId, seriesId, isBuy: false, size: '1', price: '2000' });
  const signed = await signServed(alice.account, typed.body.typedData);
  const m = typed.body.typedData.message;
  const order = { seriesId: m.seriesId, portfolioId: BigInt(m.portfolioId), isBuy: m.isBuy, tick: Number(m.tick), size: BigInt(m.size), expiry: Number(m.expiry), nonce: BigInt(m.nonce), deadline: BigInt(m.deadline) };
  const orderId = hashTypedData({ domain: orderBookDomain(config.serviceName, config.chainId, chain.addresses.orderBook), types: placeOrderTypes, primaryType: 'PlaceOrder', message: order });
  const events = app.app.engine.state.chainEvents.size;
  t.equal((await send('placeOrderSigned', [order, signed.signature])).status, 'success', "the wallet's own transaction");
  const open = await until('the order in the book', async () => {
    const r = await request(`${app.url}/api/mm/orders/${orderId}`, { token: alice.token });
    return r.status === 200 && r.body.status === 'open' ? r.body : null;
  });
  t.match(open, { orderId, side: 'sell', size: '1000000000000000000' }, 'the venue has it, as placed through its route');
  t.equal(app.app.engine.state.orderIndex.has(orderId as Hex), true);

  await send('placeOrderSigned', [order, signed.signature]);
  await until('the same call taken in again', () => (app.app.engine.state.chainEvents.size === events + 2 ? true : null));
  t.equal((await request(`${app.url}/api/mm/orders/${orderId}`, { token: alice.token })).body.status, 'open', 'a duplicate changes nothing');
  const viaRoute = await post(app, '/api/mm/orders/place', alice.token, signed);
  t.equal(viaRoute.status, 400, 'the same signed order through the route: its nonce is used', { body: viaRoute.body });

  const bid = await place(app, bob, { seriesId, isBuy: true, size: '1', price: '2000' });
  t.equal(bid.relay.body.orders[0].status, 'filled', 'it trades', { body: bid.relay.body });
  await settled(app);
  t.equal(await chain.filledOf(alice.address, orderId), 10n ** 18n, 'and settles on chain like any order');

  // A cancel, signed as the venue serves it, sent on chain.
  const resting = await place(app, alice, { seriesId, isBuy: false, size: '1', price: '2500' });
  const restingId = resting.relay.body.orders[0].orderId as Hex;
  const typedCancel = await post(app, '/api/mm/orders/cancel-batch', alice.token, { cancellations: [{ orderId: restingId }] });
  const cancel = await signServed(alice.account, typedCancel.body.cancellations[0].typedData);
  const cm = typedCancel.body.cancellations[0].typedData.message;
  await send('batchCancelOrders', [[{ orderId: cm.orderId, nonce: BigInt(cm.nonce), deadline: BigInt(cm.deadline) }], [cancel.signature]]);
  const cancelled = await until('the cancel taken in', async () => {
    const r = await request(`${app.url}/api/mm/orders/${restingId}`, { token: alice.token });
    return r.body.status === 'cancelled' ? r.body : null;
  });
  t.equal(cancelled.cancelReason, 'user');

  let err = '';
  try {
    await chain.client.simulateContract({ ...ob, account: alice.account, functionName: 'placeOrderSigned', args: [order, `0x${'00'.repeat(65)}`] } as never);
  } catch (e) {
    err = String(e);
  }
  t.match(err, /ECDSAInvalidSignature|revert/, 'a signature that recovers to nothing reverts');
  await settled(app);
});

t.test("a taker's RFQ fill sent to rfq.fillQuote itself fills the quote and settles", async (t) => {
  const app = await startChainApp();
  t.teardown(() => app.close());
  const chain = chainOf(app);
  const config = app.app.services.config;
  const spec = liveSeries(app).spec;
  const taker = await trader(app, 'direct-rfq-taker', { deposit: 1_000_000 });
  const mm = await trader(app, 'direct-rfq-mm', { deposit: 5_000_000, mmm: true });
  const req = await post(app, '/api/rfq/request', taker.token, { seriesId: spec.seriesId, size: wad(1).toString(), takerIsBuying: true, portfolioId: taker.portfolioId, ttlSeconds: 30 });
  const message = {
    mmm: mm.address, taker: zeroAddress as Hex, seriesId: spec.seriesId, takerIsBuying: true, price: wad(2100), size: wad(1), nonce: 0n,
    quoteExpiry: BigInt(Math.floor(app.clock.now / 1000) + 30), pairId: spec.pairId, strike: spec.strike, optionExpiry: BigInt(spec.expiry), isCall: spec.isCall,
  } as RfqQuoteFields;
  const quote = await signRfqQuote(mm.account, rfqDomain(config.serviceName, config.chainId, config.contracts.rfq), message);
  const submitted = await post(app, '/api/mm/quotes/submit', mm.token, { ...quote.quote, signature: quote.signature, requestId: req.body.requestId });
  t.equal(submitted.body.status, 'active', { body: submitted.body });
  const typed = await post(app, '/api/rfq/fill', taker.token, { quote: quote.quote, mmSignature: quote.signature, fillSize: wad(1).toString(), portfolioId: taker.portfolioId });
  const signed = await signServed(taker.account, typed.body.typedData);
  const f = typed.body.typedData.message;
  await chain.fund(taker.address);
  const hash = await chain.wallet(taker.account).writeContract({
    address: chain.addresses.rfq, abi: rfqAbi, functionName: 'fillQuote',
    args: [message, quote.signature, { quoteId: f.quoteId, portfolioId: BigInt(f.portfolioId), fillSize: BigInt(f.fillSize), nonce: BigInt(f.nonce), deadline: BigInt(f.deadline) }, signed.signature],
  } as never);
  t.equal((await chain.client.waitForTransactionReceipt({ hash })).status, 'success', "the taker's own transaction");
  const resolved = await until('the RFQ filled', async () => {
    const r = await request(`${app.url}/api/rfq/quotes/${req.body.requestId}`, { token: taker.token });
    return r.body.status === 'filled' ? r.body : null;
  });
  t.equal(resolved.status, 'filled', 'the venue filled it, as through its route');
  await settled(app);
  t.equal(await chain.client.readContract({ address: chain.addresses.rfq, abi: rfqAbi, functionName: 'quoteFilled', args: [submitted.body.quoteId] }), wad(1), 'and the fill settled on chain, checked by the rfq contract');
});
