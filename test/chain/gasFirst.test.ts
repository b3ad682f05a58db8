/**
 * The gas model (chain/gasModel.ts) bounds the first fills of a fresh deployment, each alone in
 * its batch: a book fill and an RFQ fill that are the venue's first fee-paying trades also write
 * the fees account and the total premium from zero, which the steady state never does (the
 * relayer's gas limit is the model's figure: below what the batch needs, it runs out of gas).
 */
import t from 'tap';
import { accountOf, chainFixture, headerAt, T0, WAD, type Fixture } from './support/fixture.ts';
import { listMarket, STRIKE } from './support/market.ts';
import { BatchWriter, journalPosOf, settleCalldata } from '../../chain/items.ts';

/** What anvil's eth_estimateGas asks for settle() of `w` (the gas before refunds). */
async function estimate(fx: Fixture, w: BatchWriter): Promise<bigint> {
  const data = settleCalldata(headerAt((await fx.lastSeq()) + 1n, fx.matchTime, journalPosOf(10 ** 9, 0)), w.bytes());
  return fx.pub.estimateGas({ account: fx.relayer.address, to: fx.addresses.orderBook, data });
}

t.test("a fresh venue's first book fill, with fees", async (t) => {
  const fx = await chainFixture('gas-first-book');
  t.teardown(() => fx.stop());
  const m = await listMarket(fx, 'GASFB', 2);
  const w = new BatchWriter();
  await m.fill(w, m.accounts[0]!, m.accounts[1]!, WAD, 50_000, true, { maker: 100n, taker: 200n });
  const needed = await estimate(fx, w);
  t.ok(BigInt(w.gas) >= needed, `the model's ${w.gas} bounds the ${needed} it needs`);
  await fx.settle(w);
});

t.test("a fresh venue's first RFQ fill, with a fee, a market maker trading in its portfolio 0", async (t) => {
  const fx = await chainFixture('gas-first-rfq');
  t.teardown(() => fx.stop());
  const m = await listMarket(fx, 'GASFR', 1);
  const mm = accountOf('gas-first:mm');
  const setup = new BatchWriter();
  setup.mmm(mm.address, true);
  setup.mint(mm.address, 0n, 10n ** 12n);
  await fx.settle(setup);
  const q = await fx.signQuote(mm, { taker: '0x0000000000000000000000000000000000000000', seriesId: m.seriesId, takerIsBuying: true, price: 3n * 10n ** 17n, size: WAD, nonce: 0n, quoteExpiry: BigInt(T0), pairId: m.pairId, strike: STRIKE, optionExpiry: BigInt(T0 + 30 * 86400), isCall: true });
  const f = await fx.signFill(m.accounts[0]!, await fx.quoteId(q), { portfolioId: 1n, fillSize: WAD, nonce: 1n, deadline: BigInt(T0) });
  const w = new BatchWriter();
  w.rfqFill(q, f, 0n, 3000n);
  const needed = await estimate(fx, w);
  t.ok(BigInt(w.gas) >= needed, `the model's ${w.gas} bounds the ${needed} it needs`);
  await fx.settle(w);
});
