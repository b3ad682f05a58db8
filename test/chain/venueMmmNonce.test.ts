/**
 * A market maker raises its quote nonce on chain from its own wallet (docs/rfq.md, docs/chain.md
 * "Leaving without the venue"): `rfq.incrementMmmNonce()` is a log the venue's indexer sees; the
 * engine raises the nonce as `POST /api/mm/nonce/increment` does, every fill of a quote signed at
 * the old nonce is refused `InvalidNonce`, `GET /api/mm/nonce` and the chain's `mmmNonce` agree
 * once its MMM_NONCE item settled, and all of it holds after a restart (the request taken once).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zeroAddress, type Hex } from 'viem';
import { rfqAbi } from '../../chain/artifacts.ts';
import { rfqDomain } from '../../workers/eip712/types.ts';
import { signRfqQuote, type RfqQuoteFields } from '../../client/signing.ts';
import { request, type TestApp } from '../gateway/support/testApp.ts';
import { liveSeries, post, trader, wad, type Trader } from '../gateway/routes/ordersFixture.ts';
import { chainOf, settled, startChainApp, until } from './support/venueApp.ts';

t.setTimeout(300_000);

const dataDir = mkdtempSync(join(tmpdir(), 'chain-mmm-nonce-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

const nonceOf = async (app: TestApp, mm: Trader) => (await request(`${app.url}/api/mm/nonce`, { token: mm.token })).body.nonce as string;

t.test('a quote at nonce n; the market maker raises its nonce on chain; the fill is refused, also after a restart', async (t) => {
  const first = await startChainApp({ dataDir });
  const startAt = first.clock.now;
  const spec = liveSeries(first).spec;
  const config = first.app.services.config;
  const taker = await trader(first, 'mmm-nonce-taker', { deposit: 1_000_000 });
  const mm = await trader(first, 'mmm-nonce-mm', { deposit: 5_000_000, mmm: true });
  t.equal(await nonceOf(first, mm), '0');

  const req = await post(first, '/api/rfq/request', taker.token, { seriesId: spec.seriesId, size: wad(1).toString(), takerIsBuying: true, portfolioId: taker.portfolioId, ttlSeconds: 30 });
  t.equal(req.status, 200, 'an open request', { body: req.body });
  const message = {
    mmm: mm.address, taker: zeroAddress as Hex, seriesId: spec.seriesId, takerIsBuying: true, price: wad(2100), size: wad(1), nonce: 0n,
    quoteExpiry: BigInt(Math.floor(first.clock.now / 1000) + 30), pairId: spec.pairId, strike: spec.strike, optionExpiry: BigInt(spec.expiry), isCall: spec.isCall,
  } as RfqQuoteFields;
  const quote = await signRfqQuote(mm.account, rfqDomain(config.serviceName, config.chainId, config.contracts.rfq), message);
  const submitted = await post(first, '/api/mm/quotes/submit', mm.token, { ...quote.quote, signature: quote.signature, requestId: req.body.requestId });
  t.equal(submitted.body.status, 'active', 'the quote signed at nonce 0 is live', { body: submitted.body });
  const fillBody = { quote: quote.quote, mmSignature: quote.signature, fillSize: wad(1).toString(), portfolioId: taker.portfolioId };

  const chain = chainOf(first);
  await chain.fund(mm.address);
  const rfq = { address: chain.addresses.rfq, abi: rfqAbi } as const;
  const hash = await chain.wallet(mm.account).writeContract({ ...rfq, functionName: 'incrementMmmNonce' } as never);
  t.equal((await chain.client.waitForTransactionReceipt({ hash })).status, 'success', "the market maker's own transaction");
  await until('the venue to take the increment in', async () => ((await nonceOf(first, mm)) === '1' ? true : null));
  const refused = await post(first, '/api/rfq/fill', taker.token, fillBody);
  t.equal(refused.status, 400, 'the fill of the old quote', { body: refused.body });
  t.equal(refused.body.message, 'InvalidNonce');
  await settled(first);
  t.equal(await chain.client.readContract({ ...rfq, functionName: 'mmmNonce', args: [mm.address] }), 1n, "the chain's nonce is the venue's");
  await first.close();

  const second = await startChainApp({ dataDir, startAt: startAt + 1000 });
  t.teardown(() => second.close());
  const mmAgain = { ...mm, token: await second.session(mm.address) };
  const takerAgain = { ...taker, token: await second.session(taker.address) };
  t.equal(await nonceOf(second, mmAgain), '1', 'after the restart: the nonce, taken once');
  const again = await post(second, '/api/rfq/fill', takerAgain.token, fillBody);
  t.equal(again.status, 400, 'the fill is refused after the restart too', { body: again.body });
  t.equal(again.body.message, 'InvalidNonce');
  await settled(second);
  t.equal(await nonceOf(second, mmAgain), '1', 'the indexer, reading the chain again, did not take the request twice');
  t.equal(await chainOf(second).client.readContract({ ...rfq, functionName: 'mmmNonce', args: [mm.address] }), 1n);
});
