/**
 * An RFQ fill's size rules are the engine's, as an order's are (engine/flows/rfq.ts
 * `fillQuote`): on the pair's size step, at least its minimum size, at most the venue's largest
 * order. The route refuses such fills at the edge (gateway/orders/rfqFill.ts); a fill entered
 * from the chain (the taker's own `fillQuote` call, a `direct_rfq_fill` chain event) reaches
 * only the engine, which accepted a fill below the minimum or above the maximum before.
 */
import t from 'tap';
import { WAD } from '../../engine/domain/fixed.ts';
import { pairIdOf } from '../../engine/domain/ids.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { ALICE, Harness, MM, usdc } from './support/venueFixture.ts';

const SOL = pairIdOf('SOL-USDC');
const STEP = WAD / 100n; // 0.01 contract
const MIN = WAD / 10n; // 0.1 contract
const MAX_LOTS = 500; // 5 contracts

/** A venue with a pair whose minimum size is ten of its size steps, a funded taker, and a market maker's open quote of `size`. */
function quoted(size: bigint) {
  const h = new Harness({ maxOrderLots: MAX_LOTS });
  h.ok({ type: 'list_pair', pair: { symbol: 'SOL-USDC', underlying: 'SOL', quote: 'USDC', tickDecimals: 3, minSize: MIN, sizeStep: STEP, maxCallOI: 0n, maxPutOI: 0n } });
  h.ok({ type: 'oracle', pairId: SOL, spot: 150n * WAD, volatility: (8n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] });
  h.ok({ type: 'clock' });
  const series = h.atm(SOL, true);
  h.ok({ type: 'set_mmm', address: MM, isMmm: true });
  h.ok({ type: 'deposit', owner: MM, portfolioId: 0, amount: usdc(5_000_000) });
  h.fund(ALICE, usdc(1_000_000));
  const nowSec = Math.floor(h.ts / 1000);
  const req = h.ok({ type: 'rfq_request', taker: ALICE, portfolioId: 1, seriesId: series, size, takerIsBuying: true, expiresAt: nowSec + 10 });
  const requestId = (req.value as { requestId: Hex }).requestId;
  const quoteId = `0x${'7'.padStart(64, '0')}` as Hex;
  h.ok({ type: 'rfq_quote', requestId, quote: { quoteId, mmm: MM, taker: ALICE, seriesId: series, takerIsBuying: true, price: 10n * WAD, size, nonce: 0n, quoteExpiry: nowSec + 20 } });
  return { h, requestId, quoteId, deadline: nowSec + 60 };
}

t.test('a fill below the pair minimum is refused below_min_size, on the route and from the chain', async (t) => {
  const { h, requestId, quoteId, deadline } = quoted(WAD);
  const below = h.run({ type: 'rfq_fill', requestId, quoteId, taker: ALICE, portfolioId: 1, fillSize: MIN - STEP, nonce: 1n, deadline });
  t.same(below.ok ? null : { code: below.rejection.code, details: below.rejection.details }, { code: 'below_min_size', details: { field: 'fillSize', minSize: MIN.toString() } });
  const direct = h.ok({ type: 'chain_event', id: 'chain:1:0x01:0', event: { kind: 'direct_rfq_fill', quoteId, taker: ALICE, portfolioId: 1, fillSize: MIN - STEP, nonce: 2n, deadline, signature: `0x${'11'.repeat(65)}`, txHash: `0x${'01'.repeat(32)}` } } as never);
  const taken = direct.events.find((e) => e.type === 'chain_event') as { refused: string | null } | undefined;
  t.equal(taken?.refused, 'below_min_size', 'the chain event is taken and refused with the same code');
  t.notOk(direct.events.some((e) => e.type === 'trade'), 'no trade');
  const atMin = h.ok({ type: 'rfq_fill', requestId, quoteId, taker: ALICE, portfolioId: 1, fillSize: MIN, nonce: 3n, deadline });
  t.ok(atMin.events.some((e) => e.type === 'trade'), 'the minimum itself fills');
});

t.test('a fill above the venue largest order is refused size_too_large, on the route and from the chain', async (t) => {
  const big = BigInt(MAX_LOTS + 1) * STEP;
  const { h, requestId, quoteId, deadline } = quoted(big);
  const over = h.run({ type: 'rfq_fill', requestId, quoteId, taker: ALICE, portfolioId: 1, fillSize: big, nonce: 1n, deadline });
  t.same(over.ok ? null : { code: over.rejection.code, details: over.rejection.details }, { code: 'size_too_large', details: { field: 'fillSize' } });
  const direct = h.ok({ type: 'chain_event', id: 'chain:1:0x02:0', event: { kind: 'direct_rfq_fill', quoteId, taker: ALICE, portfolioId: 1, fillSize: big, nonce: 2n, deadline, signature: `0x${'11'.repeat(65)}`, txHash: `0x${'02'.repeat(32)}` } } as never);
  t.equal((direct.events.find((e) => e.type === 'chain_event') as { refused: string | null } | undefined)?.refused, 'size_too_large');
  const atMax = h.ok({ type: 'rfq_fill', requestId, quoteId, taker: ALICE, portfolioId: 1, fillSize: BigInt(MAX_LOTS) * STEP, nonce: 3n, deadline });
  t.ok(atMax.events.some((e) => e.type === 'trade'), 'the largest order itself fills');
});
