/**
 * RFQ_FILL and MMM_NONCE (docs/chain.md): a fill of a market maker's signed quote by a taker's
 * signed FillQuote books both sides; every check fails alone with its error naming the item.
 */
import t from 'tap';
import { hashTypedData, parseEventLogs } from 'viem';
import { chainFixture, T0, WAD } from './support/fixture.ts';
import { listMarket, EXPIRY, STRIKE } from './support/market.ts';
import { BatchWriter, type SignedQuote } from '../../chain/items.ts';
import { rfqAbi } from '../../chain/artifacts.ts';
import { rfqQuoteTypes } from '../../workers/eip712/types.ts';

const fx = await chainFixture('rfq');
t.teardown(() => fx.stop());
const m = await listMarket(fx, 'RFQ', 4);
type Account = (typeof m.accounts)[number];
const [mm, taker, carol, outsider] = m.accounts as [Account, Account, Account, Account];
const MT = BigInt(T0 - 1000);
fx.setMatchTime(MT);
const PRICE = 3n * 10n ** 17n; // 0.3 per contract, WAD
const ZERO = '0x0000000000000000000000000000000000000000' as const;
{
  const w = new BatchWriter();
  w.mmm(mm.address, true);
  await fx.settle(w);
}
const rfq = { address: fx.addresses.rfq, abi: rfqAbi } as const;

let fillNonce = 1n;
async function quoteOf(over: Partial<Omit<SignedQuote, 'mmm' | 'signature'>> = {}, signer: Account = mm) {
  const q = {
    taker: ZERO, seriesId: m.seriesId, takerIsBuying: true, price: PRICE, size: 5n * WAD, nonce: await fx.pub.readContract({ ...rfq, functionName: 'mmmNonce', args: [mm.address] }),
    quoteExpiry: MT + 30n, pairId: m.pairId, strike: STRIKE, optionExpiry: BigInt(EXPIRY), isCall: true, ...over,
  };
  const signed = await fx.signQuote(signer, q);
  return { ...signed, mmm: mm.address };
}
async function fillBatch(q: SignedQuote, opts: { size?: bigint; by?: Account; portfolioId?: bigint; deadline?: bigint; fees?: [bigint, bigint]; signer?: Account } = {}) {
  const quoteId = await fx.quoteId(q);
  const f = await fx.signFill(opts.signer ?? opts.by ?? taker, quoteId, { portfolioId: opts.portfolioId ?? 1n, fillSize: opts.size ?? WAD, nonce: fillNonce++, deadline: opts.deadline ?? MT + 300n });
  const w = new BatchWriter();
  w.rfqFill(q, { ...f, taker: (opts.by ?? taker).address }, opts.fees?.[0] ?? 0n, opts.fees?.[1] ?? 0n);
  return { w, quoteId, fill: f };
}
const state = () => fx.fingerprint({ accounts: [[mm.address, 0n], [taker.address, 1n]], positions: [[mm.address, 0n, m.seriesId], [taker.address, 1n, m.seriesId]] });

t.test('a fill books the taker and the market maker in (mmm, 0), with fees; quoteFilled and the views follow', async (t) => {
  const q = await quoteOf();
  const quoteId = await fx.quoteId(q);
  const { signature: _s, ...message } = q;
  t.equal(quoteId, hashTypedData({ domain: fx.quoteDomain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message }), 'quoteId is the EIP-712 digest');
  const { signature, ...quote } = q;
  t.equal(await fx.pub.readContract({ ...rfq, functionName: 'verifySignature', args: [quote, signature] }), true);
  t.same(await fx.pub.readContract({ ...rfq, functionName: 'getQuoteStatus', args: [quote, signature] }), [0n, 5n * WAD, false], 'not valid at block time: it expired before the block');
  const cash = await fx.cashOf(taker.address, 1n);
  const mmCash = await fx.cashOf(mm.address, 0n);
  const premium = (2n * WAD * PRICE) / 10n ** 30n;
  const { w } = await fillBatch(q, { size: 2n * WAD, fees: [-10n, 20n] });
  const receipt = await fx.settle(w);
  t.equal(await fx.positionOf(taker.address, 1n, m.seriesId), 2n * WAD);
  t.equal(await fx.premiumOf(taker.address, 1n, m.seriesId), -premium);
  t.equal(await fx.positionOf(mm.address, 0n, m.seriesId), -2n * WAD);
  t.equal(await fx.premiumOf(mm.address, 0n, m.seriesId), premium);
  t.equal(await fx.cashOf(taker.address, 1n), cash - 20n, 'the taker fee');
  t.equal(await fx.cashOf(mm.address, 0n), mmCash + 10n, 'the maker rebate');
  t.equal(await fx.pub.readContract({ ...rfq, functionName: 'quoteFilled', args: [quoteId] }), 2n * WAD);
  const [filled] = parseEventLogs({ abi: rfqAbi, logs: receipt.logs, eventName: 'QuoteFilled' });
  t.match(filled?.args, { quoteId, mmm: mm.address, taker: taker.address, fillSize: 2n * WAD, filled: 2n * WAD });
});

t.test('the market maker\'s signature and flag, the quote\'s series', async (t) => {
  const genuine = await quoteOf();
  const { signature: _, mmm: __, ...terms } = genuine;
  const forgedSignature = await carol.signTypedData({ domain: fx.quoteDomain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message: { ...terms, mmm: mm.address } });
  const forged = { ...genuine, signature: forgedSignature };
  t.match(await fx.settleReverts((await fillBatch(forged)).w, state), { name: 'BadSignature', args: { item: 0n, expected: mm.address, recovered: carol.address }, item: 0 });
  const byOutsider = { ...(await quoteOf({}, outsider)), mmm: outsider.address };
  t.match(await fx.settleReverts((await fillBatch(byOutsider)).w, state), { name: 'NotMmm', args: { item: 0n, account: outsider.address } });
  const wrong = await quoteOf({ strike: STRIKE + 1n });
  t.match(await fx.settleReverts((await fillBatch(wrong)).w, state), { name: 'SeriesMismatch', args: { item: 0n, makerSeries: m.seriesId } });
});

t.test('QuoteExpired, WrongTaker, the taker\'s signature and deadline, portfolio 0', async (t) => {
  const expired = await quoteOf({ quoteExpiry: MT });
  const { w, quoteId } = await fillBatch(expired);
  t.match(await fx.settleReverts(w, state), { name: 'QuoteExpired', args: { item: 0n, quoteId, quoteExpiry: MT } });
  const forCarol = await quoteOf({ taker: carol.address });
  t.match(await fx.settleReverts((await fillBatch(forCarol)).w, state), { name: 'WrongTaker', args: { item: 0n, allowed: carol.address, taker: taker.address } });
  const q = await quoteOf();
  t.match(await fx.settleReverts((await fillBatch(q, { signer: carol })).w, state), { name: 'BadSignature', args: { item: 0n, expected: taker.address, recovered: carol.address } });
  const late = await fillBatch(q, { deadline: MT - 1n });
  const fillId = await fx.pub.readContract({ ...rfq, functionName: 'fillQuoteId', args: [late.quoteId, 1n, WAD, late.fill.nonce, MT - 1n] });
  t.match(await fx.settleReverts(late.w, state), { name: 'DeadlinePassed', args: { item: 0n, orderId: fillId, deadline: MT - 1n } });
  t.match(await fx.settleReverts((await fillBatch(q, { portfolioId: 0n })).w, state), { name: 'NotMmm', args: { item: 0n, account: taker.address } });
  t.match(await fx.settleReverts((await fillBatch(q, { size: 0n })).w, state), { name: 'ZeroSize', args: { item: 0n } });
});

t.test('QuoteOverfilled across fills, a FillQuote settles once, fee caps', async (t) => {
  const q = await quoteOf({ size: 3n * WAD });
  const first = await fillBatch(q, { size: WAD });
  await fx.settle(first.w);
  t.match(await fx.settleReverts(first.w, state), { name: 'FillQuoteUsed', args: { item: 0n } }, 'the same signed fill again');
  const over = await fillBatch(q, { size: 3n * WAD });
  t.match(await fx.settleReverts(over.w, state), { name: 'QuoteOverfilled', args: { item: 0n, quoteId: over.quoteId, filledAfter: 4n * WAD, size: 3n * WAD } });
  const cap = ((WAD * PRICE) / 10n ** 30n * 125n) / 1000n;
  t.match(await fx.settleReverts((await fillBatch(q, { fees: [0n, cap + 1n] })).w, state), { name: 'FeeAboveCap', args: { item: 0n, fee: cap + 1n, cap } });
  await fx.settle((await fillBatch(q, { fees: [-cap, cap] })).w);
  await fx.settle((await fillBatch(q)).w);
  t.equal(await fx.pub.readContract({ ...rfq, functionName: 'quoteFilled', args: [over.quoteId] }), 3n * WAD, 'filled to its size');
});

t.test('MMM_NONCE raises the nonce; older quotes fail InvalidNonce; the nonce only rises', async (t) => {
  const old = await quoteOf();
  const w = new BatchWriter();
  w.mmmNonce(mm.address, old.nonce + 1n);
  const receipt = await fx.settle(w);
  const [raised] = parseEventLogs({ abi: rfqAbi, logs: receipt.logs, eventName: 'MmmNonceIncremented' });
  t.same(raised?.args, { mmm: mm.address, nonce: old.nonce + 1n });
  t.match(await fx.settleReverts((await fillBatch(old)).w, state), { name: 'InvalidNonce', args: { item: 0n, expected: old.nonce + 1n, given: old.nonce } });
  await fx.settle((await fillBatch(await quoteOf())).w);
  const again = new BatchWriter();
  again.mmmNonce(mm.address, old.nonce + 1n);
  t.match(await fx.settleReverts(again, state), { name: 'NonceNotIncreasing', args: { item: 0n, current: old.nonce + 1n, given: old.nonce + 1n } });
});

t.test('incrementMmmNonce only logs a request; fillQuote checks both signatures and logs the fill', async (t) => {
  await fx.fund(mm.address);
  await fx.fund(taker.address);
  const before = await fx.pub.readContract({ ...rfq, functionName: 'mmmNonce', args: [mm.address] });
  const hash = await fx.walletOf(mm).writeContract({ ...rfq, account: mm, chain: fx.chain, functionName: 'incrementMmmNonce' } as never);
  const receipt = await fx.pub.waitForTransactionReceipt({ hash });
  t.same(parseEventLogs({ abi: rfqAbi, logs: receipt.logs, eventName: 'MmmNonceIncrementRequested' }).map((l) => l.args), [{ mmm: mm.address, nonce: before }], 'the request names the nonce in force');
  t.equal(await fx.pub.readContract({ ...rfq, functionName: 'mmmNonce', args: [mm.address] }), before, 'the nonce moves only with the stream');

  const q = await quoteOf({ price: PRICE + 7n });
  const { quoteId, fill } = await fillBatch(q);
  const { signature: mmSig, ...quote } = q;
  const filledBefore = await fx.pub.readContract({ ...rfq, functionName: 'quoteFilled', args: [quoteId] });
  const fillArg = { quoteId, portfolioId: 1n, fillSize: WAD, nonce: fill.nonce, deadline: fill.deadline };
  const call = (args: readonly unknown[]) => fx.pub.simulateContract({ ...rfq, account: taker, functionName: 'fillQuote', args } as never).then(() => null, (e: unknown) => String(e));
  t.match(await call([quote, fill.signature, fillArg, fill.signature]), /BadQuoteSignature/, "a quote signature that is not the market maker's");
  t.match(await call([quote, mmSig, { ...fillArg, quoteId: `0x${'11'.repeat(32)}` }, fill.signature]), /FillOfAnotherQuote/);
  const sent = await fx.pub.waitForTransactionReceipt({ hash: await fx.walletOf(taker).writeContract({ ...rfq, account: taker, chain: fx.chain, functionName: 'fillQuote', args: [quote, mmSig, fillArg, fill.signature] } as never) });
  t.same(parseEventLogs({ abi: rfqAbi, logs: sent.logs, eventName: 'QuoteFillDirect' }).map((l) => l.args), [{ quoteId, taker: taker.address, portfolioId: 1n, fillSize: WAD, nonce: fill.nonce, deadline: fill.deadline, takerSignature: fill.signature }], 'logged with the recovered taker');
  t.equal(await fx.pub.readContract({ ...rfq, functionName: 'quoteFilled', args: [quoteId] }), filledBefore, 'nothing settles outside the stream');
});
