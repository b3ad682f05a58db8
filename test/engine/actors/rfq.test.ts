import t from 'tap';
import { RfqActor, type QuoteRecord, type RfqRequest } from '../../../engine/actors/rfq.ts';
import type { Hex } from '../../../engine/domain/hex.ts';

const id = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const request = (n: number, expiresAt = 100): RfqRequest => ({
  requestId: id(n),
  taker: '0xabc',
  portfolioId: 1,
  seriesId: id(1),
  pairId: id(2),
  size: 10n,
  takerIsBuying: true,
  createdAt: n,
  expiresAt,
  status: 'open',
  filledQuoteId: null,
  quotes: new Map(),
});
const quote = (quoteId: Hex): QuoteRecord => ({ quoteId, mmm: '0xmm', taker: '0x0', seriesId: id(1), takerIsBuying: true, price: 1n, size: 1n, nonce: 0n, quoteExpiry: 50, filled: 0n, submittedAt: 0 });

t.test('open requests, due requests and quote lookups come from the indexes, in creation order', async (t) => {
  const rfq = new RfqActor();
  const a = request(1, 10);
  const b = request(2, 20);
  const c = request(3, 10);
  for (const r of [a, b, c]) rfq.add(r);
  const q = id(99);
  rfq.addQuote(b, quote(q));
  rfq.addQuote(c, quote(q)); // one signed quote sent to two requests
  t.equal(rfq.findQuote(q)?.request, b, 'a fill takes the oldest request holding the quote');
  t.equal(rfq.findQuote(id(98)), null);
  t.same(rfq.due(10).map((r) => r.requestId), [a.requestId, c.requestId], 'due in creation order');
  rfq.resolve(a, 'expired');
  t.same(rfq.open().map((r) => r.requestId), [b.requestId, c.requestId]);
  t.same(rfq.due(10).map((r) => r.requestId), [c.requestId]);
  rfq.resolve(b, 'filled');
  t.equal(rfq.findQuote(q)?.request, b, 'a resolved request is still found while it is kept');
  // 10,000 more resolved requests push b out of the kept history: c holds the quote now.
  for (let n = 10; n < 10_010; n++) {
    const r = request(n);
    rfq.add(r);
    rfq.resolve(r, 'cancelled');
  }
  t.notOk(rfq.requests.has(b.requestId), 'b forgotten');
  t.equal(rfq.findQuote(q)?.request, c, 'the quote is found in the next request holding it');
  t.same(rfq.open().map((r) => r.requestId), [c.requestId]);
  t.equal(rfq.requests.size, 10_001, '10,000 resolved and the open one');
});
