/**
 * The RFQ flow end to end against the real server, signed with viem: request, public
 * auctions, MMM quotes (and their refusals), quotes best first, nonce increment making a
 * quote fail with InvalidNonce, and the two-phase fill with its calldata decoded.
 */
import t from 'tap';
import { decodeFunctionData, hashTypedData, zeroAddress, type Hex } from 'viem';
import { startTestApp, request } from '../support/testApp.ts';
import { rfqAbi } from '../../../gateway/abi.ts';
import { rfqDomain, rfqQuoteTypes } from '../../../workers/eip712/types.ts';
import { liveSeries, post, signServed, toViemMessage, trader, wad, type Trader } from './ordersFixture.ts';
import { signRfqQuote, type RfqQuoteFields } from '../../../client/signing.ts';

const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
const series = liveSeries(app);
const spec = series.spec;
const config = app.app.services.config;
const domain = rfqDomain(config.serviceName, config.chainId, config.contracts.rfq);

const taker = await trader(app, 'rfq-taker', { deposit: 1_000_000 });
const other = await trader(app, 'rfq-other', { deposit: 1_000_000 });
const mm1 = await trader(app, 'rfq-mm1', { deposit: 5_000_000, mmm: true });
const mm2 = await trader(app, 'rfq-mm2', { deposit: 5_000_000, mmm: true });
const nowSec = () => Math.floor(app.clock.now / 1000);

async function signedQuote(mm: Trader, fields: Partial<Record<string, unknown>> = {}) {
  const nonce = BigInt((await request(`${app.url}/api/mm/nonce`, { token: mm.token })).body.nonce);
  const message = {
    mmm: mm.address,
    taker: zeroAddress as Hex,
    seriesId: spec.seriesId,
    takerIsBuying: true,
    price: wad(2100),
    size: wad(1),
    nonce,
    quoteExpiry: BigInt(nowSec() + 20),
    pairId: spec.pairId,
    strike: spec.strike,
    optionExpiry: BigInt(spec.expiry),
    isCall: spec.isCall,
    ...fields,
  } as RfqQuoteFields;
  // As a market maker signs it: the client's RfqQuote signing and wire body.
  const { quote: wire, signature } = await signRfqQuote(mm.account, domain, message);
  return { message, signature, wire, quoteId: hashTypedData({ domain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message: message as never }) };
}

t.test('request, quote, compare, cancel by nonce, fill', async (t) => {
  const req = await post(app, '/api/rfq/request', taker.token, { seriesId: spec.seriesId, size: wad(1).toString(), takerIsBuying: true, portfolioId: taker.portfolioId });
  t.equal(req.status, 200, 'status', { body: req.body });
  t.match(req.body, { seriesId: spec.seriesId, size: wad(1).toString(), takerIsBuying: true, status: 'open' });
  t.equal(Date.parse(req.body.expiresAt), (nowSec() + 10) * 1000, 'default ttl 10 s');
  const requestId = req.body.requestId as Hex;

  const auctions = await request(`${app.url}/api/rfq/active-auctions`);
  t.equal(auctions.status, 200);
  const a = auctions.body.auctions.find((x: { requestId: string }) => x.requestId === requestId);
  t.match(a, { seriesId: spec.seriesId, strike: spec.strike.toString(), optionExpiry: spec.expiry, isCall: true, takerIsBuying: true, quoteCount: 0 });
  t.notOk('taker' in a, 'the taker is not public');

  const q1 = await signedQuote(mm1);
  const notMmm = await post(app, '/api/mm/quotes/submit', other.token, { ...q1.wire, signature: q1.signature });
  t.equal(notMmm.status, 403);
  t.equal(notMmm.body.message, 'MMM membership required');
  const sub1 = await post(app, '/api/mm/quotes/submit', mm1.token, { ...q1.wire, signature: q1.signature });
  t.equal(sub1.status, 200, 'status', { body: sub1.body });
  t.equal(sub1.body.quoteId, q1.quoteId, 'quoteId = hashTypedData(RfqQuote)');
  t.equal(sub1.body.status, 'active');
  t.equal(sub1.body.requestId, requestId, 'matched to the one open request');
  t.equal(Date.parse(sub1.body.expiresAt), Number(q1.message.quoteExpiry) * 1000);

  const refusals: [string, Partial<Record<string, unknown>>, number, string][] = [
    ['stale nonce', { nonce: 5n }, 400, 'quote_invalid_nonce'],
    ['expiry beyond 30 s', { quoteExpiry: BigInt(nowSec() + 31) }, 400, 'quote_expired'],
    ['expiry passed', { quoteExpiry: BigInt(nowSec()) }, 400, 'quote_expired'],
    ['bigger than requested', { size: wad(2) }, 404, 'unknown_rfq'],
    ['wrong strike', { strike: spec.strike + 1n }, 400, 'quote_mismatch'],
  ];
  for (const [name, fields, status, reason] of refusals) {
    const q = await signedQuote(mm2, fields);
    const r = await post(app, '/api/mm/quotes/submit', mm2.token, { ...q.wire, signature: q.signature, ...(status === 400 ? { requestId } : {}) });
    t.equal(r.status, status, name, { body: r.body });
    t.equal(r.body.details?.reason, reason, name);
  }
  const stale = await signedQuote(mm2, { nonce: 5n });
  const staleReply = await post(app, '/api/mm/quotes/submit', mm2.token, { ...stale.wire, signature: stale.signature, requestId });
  t.equal(staleReply.body.message, 'InvalidNonce');
  const forged = await signedQuote(mm2);
  const wrongSigner = await post(app, '/api/mm/quotes/submit', mm2.token, { ...forged.wire, signature: q1.signature, requestId });
  t.equal(wrongSigner.status, 400, 'a signature by another MMM');
  t.equal(wrongSigner.body.details.field, 'signature');
  t.equal(wrongSigner.body.details.reason, 'wrong_signer');
  t.equal(wrongSigner.body.details.digest, forged.quoteId, 'details name the digest the venue computed');
  t.same(wrongSigner.body.details.domain, { name: 'DiffusalOptionsRFQ', version: '1', chainId: config.chainId, verifyingContract: config.contracts.rfq }, 'and the domain it used');

  const q2 = await signedQuote(mm2, { price: wad(2050) });
  const sub2 = await post(app, '/api/mm/quotes/submit', mm2.token, { ...q2.wire, signature: q2.signature, requestId });
  t.equal(sub2.status, 200, 'status', { body: sub2.body });

  const quotes = await request(`${app.url}/api/rfq/quotes/${requestId}`, { token: taker.token });
  t.equal(quotes.status, 200);
  t.same(quotes.body.quotes.map((q: { price: string }) => q.price), [wad(2050).toString(), wad(2100).toString()], 'best first: lowest price for a buying taker');
  t.same(quotes.body.quotes.map((q: { status: string }) => q.status), ['active', 'active']);
  t.equal(quotes.body.quotes[0].signature, q2.signature, 'the taker gets the signature it needs to fill');
  t.same(quotes.body.quotes[0].quote, q2.wire);
  const mmView = await request(`${app.url}/api/rfq/quotes/${requestId}`, { token: mm1.token });
  t.same(mmView.body.quotes.map((q: { quoteId: string }) => q.quoteId), [q1.quoteId], 'an MMM sees only its own quotes');
  t.equal((await request(`${app.url}/api/rfq/quotes/${requestId}`, { token: other.token })).status, 404);

  const inc = await post(app, '/api/mm/nonce/increment', mm2.token, undefined);
  t.equal(inc.status, 200, 'status', { body: inc.body });
  t.same(inc.body, { nonce: '1', previousNonce: '0' });
  t.equal((await post(app, '/api/mm/nonce/increment', other.token, undefined)).status, 403, 'only MMMs');
  const after = await request(`${app.url}/api/rfq/quotes/${requestId}`, { token: taker.token });
  t.equal(after.body.quotes.find((q: { quoteId: string }) => q.quoteId === q2.quoteId).status, 'cancelled');
  const fillBody2 = { quote: q2.wire, mmSignature: q2.signature, fillSize: wad(1).toString(), portfolioId: taker.portfolioId };
  const invalidNonce = await post(app, '/api/rfq/fill', taker.token, fillBody2);
  t.equal(invalidNonce.status, 400);
  t.equal(invalidNonce.body.code, 'failed_precondition');
  t.equal(invalidNonce.body.message, 'InvalidNonce');
  t.equal(invalidNonce.body.details.error, 'InvalidNonce');

  const fillBody = { quote: q1.wire, mmSignature: q1.signature, fillSize: wad(0.5).toString(), portfolioId: taker.portfolioId };
  t.equal((await post(app, '/api/rfq/fill', other.token, fillBody)).status, 404, 'only the requester fills');
  const offStep = await post(app, '/api/rfq/fill', taker.token, { ...fillBody, fillSize: '5' });
  t.equal(offStep.status, 400);
  t.equal(offStep.body.details.field, 'fillSize');
  const typed = await post(app, '/api/rfq/fill', taker.token, fillBody);
  t.equal(typed.status, 200, 'status', { body: typed.body });
  t.equal(typed.body.operation, 'fill_quote');
  t.equal(typed.body.contractAddress, config.contracts.rfq);
  t.equal(typed.body.typedData.primaryType, 'FillQuote');
  t.match(typed.body.typedData.message, { quoteId: q1.quoteId, portfolioId: String(taker.portfolioId), fillSize: wad(0.5).toString() });
  const signedFill = await signServed(taker.account, typed.body.typedData);
  const wrongMm = await post(app, '/api/rfq/fill', taker.token, { ...fillBody, mmSignature: q2.signature, signature: signedFill.signature, nonce: signedFill.nonce, deadline: signedFill.deadline });
  t.equal(wrongMm.status, 400, 'mmSignature must be the quote signer');
  t.equal(wrongMm.body.details.field, 'mmSignature');
  t.equal(wrongMm.body.details.reason, 'wrong_signer');
  t.equal(wrongMm.body.details.digest, q1.quoteId, 'details name the digest the venue computed');
  const contracts = await request(`${app.url}/api/markets/contracts`);
  t.same(wrongMm.body.details.domain, contracts.body.domains.rfq, 'and the domain it used, as /api/markets/contracts lists it');
  const wrongTaker = await post(app, '/api/rfq/fill', taker.token, { ...fillBody, signature: (await signServed(other.account, typed.body.typedData)).signature, nonce: signedFill.nonce, deadline: signedFill.deadline });
  t.equal(wrongTaker.body.details.reason, 'wrong_signer', 'a fill signed by another wallet');
  t.equal(wrongTaker.body.details.signer, other.address);
  t.equal(wrongTaker.body.details.digest, hashTypedData({ domain: typed.body.typedData.domain, types: typed.body.typedData.types, primaryType: 'FillQuote', message: toViemMessage(typed.body.typedData.types, 'FillQuote', typed.body.typedData.message) as never }));
  t.same(wrongTaker.body.details.domain, typed.body.typedData.domain);
  const relay = await post(app, '/api/rfq/fill', taker.token, { ...fillBody, signature: signedFill.signature, nonce: signedFill.nonce, deadline: signedFill.deadline });
  t.equal(relay.status, 200, 'status', { body: relay.body });
  t.equal(relay.body.mode, 'relay');
  t.equal(relay.body.relay.functionName, 'fillQuote');
  t.equal(relay.body.relay.to, config.contracts.rfq);
  t.match(relay.body.fill, { requestId, quoteId: q1.quoteId, price: wad(2100).toString(), size: wad(0.5).toString(), side: 'buy' });
  t.match(relay.body.fill.tradeId, /^[0-9]+$/);
  const decoded = decodeFunctionData({ abi: rfqAbi, data: relay.body.relay.calldata });
  const [quote, mmSig, fill, takerSig] = decoded.args as unknown as [Record<string, unknown>, string, Record<string, unknown>, string];
  for (const [k, v] of Object.entries(q1.message)) t.equal(quote[k], v, `quote.${k}`);
  t.equal(mmSig, q1.signature);
  t.same(fill, { quoteId: q1.quoteId, portfolioId: BigInt(taker.portfolioId), fillSize: wad(0.5), nonce: BigInt(signedFill.nonce as string), deadline: BigInt(signedFill.deadline as string) });
  t.equal(takerSig, signedFill.signature);

  const resolved = await request(`${app.url}/api/rfq/quotes/${requestId}`, { token: taker.token });
  t.equal(resolved.body.status, 'filled');
  const open = await request(`${app.url}/api/rfq/active-auctions`);
  t.notOk(open.body.auctions.some((x: { requestId: string }) => x.requestId === requestId), 'no longer active');
  const twice = await post(app, '/api/rfq/fill', taker.token, { ...fillBody, signature: signedFill.signature, nonce: signedFill.nonce, deadline: signedFill.deadline });
  t.equal(twice.status, 400);
  t.equal(twice.body.details.reason, 'rfq_closed');
});

t.test('request refusals', async (t) => {
  const unknown = await post(app, '/api/rfq/request', taker.token, { seriesId: `0x${'cd'.repeat(32)}`, size: wad(1).toString(), takerIsBuying: false });
  t.equal(unknown.status, 404);
  t.match(unknown.body.message, /^Series not found: 0x/);
  const bad = await post(app, '/api/rfq/request', taker.token, { seriesId: spec.seriesId, size: '1.5', takerIsBuying: false });
  t.equal(bad.status, 400);
  const ttl = await post(app, '/api/rfq/request', taker.token, { seriesId: spec.seriesId, size: wad(1).toString(), takerIsBuying: false, ttlSeconds: 31 });
  t.equal(ttl.status, 400);
  const offStep = await post(app, '/api/rfq/request', taker.token, { seriesId: spec.seriesId, size: '5', takerIsBuying: false });
  t.equal(offStep.status, 400);
  t.equal((await request(`${app.url}/api/rfq/request`, { method: 'POST', body: { seriesId: spec.seriesId, size: '1', takerIsBuying: false } })).status, 401);
  const q = await signedQuote(mm1, { takerIsBuying: false });
  const none = await post(app, '/api/mm/quotes/submit', mm1.token, { ...q.wire, signature: q.signature });
  t.equal(none.status, 404, 'no open request matches');
});
