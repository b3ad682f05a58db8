/**
 * /ws/rfq/mm: only MMMs are admitted (AUTH frame or Authorization header at connect);
 * every connected MMM receives rfq_request for new auctions (and open ones at AUTH) and
 * rfq_resolved; an rfq_response signed with EIP-712 goes through the same checks as
 * POST /api/mm/quotes/submit; a revoked MMM is disconnected.
 */
import t from 'tap';
import { privateKeyToAccount } from 'viem/accounts';
import { keccak256, toHex } from 'viem';
import { startTestApp } from '../support/testApp.ts';
import { signRfqQuote } from '../../../client/signing.ts';
import { rfqDomain } from '../../../workers/eip712/types.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import { wsEnv, connect, priceMarks, fund, atmSeries, wallet, wad, asyncApiValidator, BTC } from './support.ts';

wsEnv({ WS_MESSAGES_PER_MINUTE: '10000' });
const app = await startTestApp({ memory: true });
t.teardown(() => app.close());
await priceMarks(app);
const mmKey = keccak256(toHex('stream test market maker'));
const mm = privateKeyToAccount(mmKey);
const mm2 = wallet(0x3232);
const taker = wallet(0x7a4e);
const stranger = wallet(0x5757);
await fund(app, taker);
const s = app.app.services;
for (const address of [mm.address, mm2]) await s.pipeline.submit({ type: 'set_mmm', address, isMmm: true });
const series = atmSeries(app);
const api = await asyncApiValidator(app);
const nowSec = () => Math.floor(s.pipeline.now() / 1000);

async function request(size = 1, ttl = 20): Promise<Hex> {
  const r = await s.pipeline.submit({ type: 'rfq_request', taker, portfolioId: 1, seriesId: series.spec.seriesId, size: wad(size), takerIsBuying: true, expiresAt: nowSec() + ttl });
  if (!r.ok || !r.value || !('requestId' in r.value)) throw new Error('rfq_request failed');
  return r.value.requestId;
}

async function signedQuote(overrides: Record<string, unknown> = {}) {
  const quote = {
    mmm: mm.address,
    taker: '0x0000000000000000000000000000000000000000',
    seriesId: series.spec.seriesId,
    takerIsBuying: true,
    price: wad(700).toString(),
    size: wad(1).toString(),
    nonce: '0',
    quoteExpiry: nowSec() + 20,
    pairId: BTC,
    strike: series.spec.strike.toString(),
    optionExpiry: series.spec.expiry,
    isCall: series.spec.isCall,
    ...overrides,
  };
  // Signed as a market maker signs it: the client's RfqQuote signing (client/signing.ts).
  const { signature } = await signRfqQuote(mm, rfqDomain(s.config.serviceName, s.config.chainId, s.config.contracts.rfq), {
    ...quote,
    mmm: quote.mmm as Hex,
    taker: quote.taker as Hex,
    seriesId: quote.seriesId as Hex,
    pairId: quote.pairId as Hex,
    price: BigInt(quote.price),
    size: BigInt(quote.size),
    nonce: BigInt(quote.nonce),
    quoteExpiry: BigInt(quote.quoteExpiry),
    strike: BigInt(quote.strike),
    optionExpiry: BigInt(quote.optionExpiry),
  });
  return { quote, signature };
}

t.test('only MMMs: a valid login without membership gets permission_denied and 4003', async (t) => {
  const c = await connect(app, '/ws/rfq/mm');
  c.send({ type: 'AUTH', token: await app.session(stranger) });
  const failed = await c.next((f) => f['type'] === 'AUTH_FAILED');
  t.same(failed, { type: 'AUTH_FAILED', code: 'permission_denied', message: 'MMM membership required' });
  t.equal((await c.closed).code, 4003);
  const bad = await connect(app, '/ws/rfq/mm', { authorization: 'Bearer nope' });
  t.match(await bad.next((f) => f['type'] === 'AUTH_FAILED'), { code: 'unauthenticated', message: 'Invalid or expired token' }, 'a bad Authorization header at connect is refused the same way');
  t.equal((await bad.closed).code, 4001);
});

t.test('rfq_request to every connected MMM, also for auctions open at AUTH; rfq_response answered', async (t) => {
  const openBefore = await request();
  const a = await connect(app, '/ws/rfq/mm', { authorization: `Bearer ${await app.session(mm.address)}` });
  t.match(await a.next((f) => f['type'] === 'AUTH_SUCCESS'), { address: mm.address }, 'authenticated from the Authorization header at connect');
  const early = await a.next((f) => f['type'] === 'rfq_request' && f['requestId'] === openBefore, 'the auction already open');
  t.equal(api.check('rfqMm.rfqRequest', early), null, 'validates');
  const b = await connect(app, '/ws/rfq/mm');
  b.send({ type: 'AUTH', token: await app.session(mm2) });
  await b.next((f) => f['type'] === 'AUTH_SUCCESS');

  const expiresAt = nowSec() + 20;
  const r = await s.pipeline.submit({ type: 'rfq_request', taker, portfolioId: 1, seriesId: series.spec.seriesId, size: wad(2), takerIsBuying: false, expiresAt });
  const requestId = r.ok && r.value && 'requestId' in r.value ? r.value.requestId : '';
  const expected = { type: 'rfq_request', requestId, pairId: BTC, seriesId: series.spec.seriesId, strike: series.spec.strike.toString(), optionExpiry: series.spec.expiry, isCall: series.spec.isCall, size: wad(2).toString(), takerIsBuying: false, expiresAt: new Date(expiresAt * 1000).toISOString() };
  t.same(await a.next((f) => f['type'] === 'rfq_request' && f['requestId'] === requestId), expected, 'MMM 1 got the interface fields');
  t.same(await b.next((f) => f['type'] === 'rfq_request' && f['requestId'] === requestId), expected, 'MMM 2 got the same');

  const { quote, signature } = await signedQuote();
  a.send({ type: 'rfq_response', requestId: openBefore, quote, signature });
  const ack = await a.next((f) => f['type'] === 'rfq_response_ack' || f['type'] === 'error', 'answer to rfq_response');
  t.match(ack, { type: 'rfq_response_ack', requestId: openBefore, status: 'active', expiresAt: new Date(quote.quoteExpiry * 1000).toISOString() });
  t.equal(api.check('rfqMm.rfqResponseAck', ack), null, 'validates');
  t.ok(app.app.engine.state.rfq.requests.get(openBefore)!.quotes.has(ack['quoteId']), 'the quote is in the auction');
  t.ok(s.reads.rfq.requests.get(openBefore)!.quotes.has(ack['quoteId']), 'and in the read model when the ack is sent');

  const stale = await signedQuote({ nonce: '5' });
  a.send({ type: 'rfq_response', requestId: openBefore, quote: stale.quote, signature: stale.signature });
  const err = await a.next((f) => f['type'] === 'error', 'refusal');
  t.match(err, { type: 'error', requestId: openBefore, message: /nonce|Nonce/ }, 'a stale nonce is refused as on REST');
  t.equal(api.check('rfqMm.error', err), null, 'validates');
  const forged = await signedQuote();
  a.send({ type: 'rfq_response', requestId: openBefore, quote: { ...forged.quote, price: wad(1).toString() }, signature: forged.signature });
  t.match(await a.next((f) => f['type'] === 'error'), { code: 'invalid_argument', message: /signature/ }, 'a signature over other fields is refused');
  a.send({ type: 'rfq_response', quote, signature });
  t.match(await a.next((f) => f['type'] === 'error'), { code: 'invalid_argument', message: /requestId is required/ });
  a.send({ type: 'hello', id: 9 });
  t.equal((await a.next((f) => f['id'] === 9))['error'].code, 4000, 'unknown messages get an error frame');
  a.send({ method: 'PING', id: 10 });
  t.same(await a.next((f) => f['id'] === 10), { result: 'PONG', id: 10 });

  app.clock.advance(21_000);
  await s.pipeline.submit({ type: 'clock' });
  const resolved = await b.next((f) => f['type'] === 'rfq_resolved' && f['requestId'] === requestId, 'rfq_resolved');
  t.same(resolved, { type: 'rfq_resolved', requestId, status: 'expired', quoteId: null });
  t.equal(api.check('rfqMm.rfqResolved', resolved), null, 'validates');

  await s.pipeline.submit({ type: 'set_mmm', address: mm2, isMmm: false });
  t.match(await b.next((f) => f['type'] === 'error'), { code: 'permission_denied', message: 'MMM membership required' });
  t.equal((await b.closed).code, 4003, 'a revoked MMM is disconnected');
  t.equal(a.isClosed(), false, 'the other MMM stays');
  a.close();
});

t.test('the Authorization header and an AUTH frame together (as the interface example does): one session', async (t) => {
  const open = await request(1, 25);
  const token = await app.session(mm.address);
  const c = await connect(app, '/ws/rfq/mm', { authorization: `Bearer ${token}` });
  await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS from the header');
  c.send({ type: 'AUTH', token });
  await c.next((f) => f['type'] === 'AUTH_SUCCESS', 'AUTH_SUCCESS again for the frame');
  c.send({ method: 'PING', id: 1 });
  await c.next((f) => f['id'] === 1);
  t.equal(c.frames.filter((f) => f['type'] === 'rfq_request' && f['requestId'] === open).length, 1, 'the open auction was sent once');
  t.equal(c.isClosed(), false);
  c.close();
});
