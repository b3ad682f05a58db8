/**
 * bench/settlement's RFQ phase (docs/rfq.md, docs/chain.md "Items" RFQ_FILL): RFQ fills settled
 * through the venue's relayer and the embedded chain, in the timed venue (bench/lib/settlementTimed.ts).
 *
 * Each fill is the whole flow over HTTP as a taker and a market maker make it: the taker's
 * `POST /api/rfq/request`, the market maker's signed RfqQuote (`POST /api/mm/quotes/submit`,
 * naming the request), the taker's signed FillQuote (`POST /api/rfq/fill`, phase two at once:
 * the taker signs the FillQuote itself with an unused nonce of its own, as a client that skips
 * phase one may). Both signatures are made here natively (bench/lib/signedOrders.ts) just before
 * the quote is sent (a quote lives 30 s at most). One worker a taker: wallet `w` buys 0.01
 * contract at the mark (plus a wei a fill: no two quotes alike) of series `w mod 8` of the
 * setup's eight from wallet `w + 1`, in portfolio 0 (both market makers), fill after fill.
 *
 * The positions exist before the first RFQ fill (one book trade each pair, FILL items) and
 * only grow: the steady state of a market maker's RFQ flow. (RFQ fills that open positions
 * cost more: on 2026-12-02 a batch of 66 fills opening and closing positions in turn took
 * 8,584,526 gas and one of 64 each opening both positions 8,443,951, above the relayer's bound
 * of then, RFQ_FILL 118,000, and settlement halted; the bound is 128,000 since, from
 * test/chain/gasItems.test.ts's fresh market makers: docs/chain.md "Gas".)
 *
 * Measured as bench/settlement's fills throughput: a warm-up drained, then block production
 * paused, `fills` RFQ fills made (the relayer cuts and sends what it may, nothing is included),
 * production resumed, and the figure is the fills / the time from the resume to the last one
 * included. Gas per RFQ fill: the median of the 100-fill batches' gas used / 100 (receipts,
 * calldata included; each fill a new quote and a new signed fill, the positions and accounts
 * there already).
 */
import { hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { domainSeparator, fillQuoteDigest, rfqQuoteDigest, rfqQuoteDigestHex } from '../../workers/eip712/digest.ts';
import type { FillQuoteMessage, RfqQuoteMessage } from '../../workers/eip712/types.ts';
import { within } from './deadline.ts';
import { closedLoop, Conn, firstErrorBody } from './httpLoad.ts';
import { presignOrders, signDigest, walletKey, WALLETS, type BenchOrder } from './signedOrders.ts';
import { percentile } from './stats.ts';
import type { MarketSeries, TimedVenue } from './settlementTimed.ts';

/** The size of every request, quote and fill: 0.01 contract (the pairs' size step). */
const SIZE = 10n ** 16n;
/** A quote's life (docs/rfq.md: at most 30 s). */
const QUOTE_TTL_S = 25;

export type RfqFigures = {
  what: string;
  fillsPerSecond: number;
  gasPerFill: number;
  fills: number;
  /** Fills a second the HTTP flow made them at while block production was paused (not the figure: the chain's rate is). */
  madeAt: number;
  spanMs: number;
  batches: number;
  fullBatches: number;
};

async function post(port: number, path: string, token: string, body: unknown): Promise<Record<string, unknown>> {
  const reply = await within(
    fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, text: await r.text() })),
    `settlement rfq: the reply to POST ${path}`,
  );
  if (reply.status !== 200) throw new Error(`settlement rfq: POST ${path} answered ${reply.status}: ${reply.text.slice(0, 400)}`);
  return JSON.parse(reply.text) as Record<string, unknown>;
}

/** `count` RFQ fills, all committed when it returns. Returns the rate they were made at (fills/s). */
async function rfqFills(v: TimedVenue, venueNowMs: () => number, separator: Uint8Array, series: readonly MarketSeries[], count: number): Promise<number> {
  const keys = Array.from({ length: WALLETS }, (_, w) => hexToBytes(walletKey(v.prefix, w)));
  const addresses = keys.map((_, w) => privateKeyToAccount(walletKey(v.prefix, w)).address);
  let made = 0;
  const worker = async (taker: number, fills: number) => {
    const mm = (taker + 1) % WALLETS;
    const s = series[taker % series.length]!;
    const takerIsBuying = true;
    for (let k = 0; k < fills; k++) {
      const request = await post(v.port, '/api/rfq/request', v.setup.tokens[taker]!, { seriesId: s.seriesId, size: SIZE.toString(), takerIsBuying, portfolioId: 0, ttlSeconds: 30 });
      const nowSec = Math.floor(venueNowMs() / 1000);
      // A wei more each fill: no two quotes alike (the same fields in the same second would be one quoteId).
      const price = (BigInt(s.mark) > SIZE ? BigInt(s.mark) : SIZE) + BigInt(++made);
      const quote: RfqQuoteMessage = {
        mmm: addresses[mm]!, taker: addresses[taker]!, seriesId: s.seriesId, takerIsBuying, price, size: SIZE, nonce: 0n,
        quoteExpiry: BigInt(nowSec + QUOTE_TTL_S), pairId: s.pairId, strike: BigInt(s.strike), optionExpiry: BigInt(s.expiry), isCall: s.isCall,
      };
      const mmSignature = signDigest(rfqQuoteDigest(separator, quote), keys[mm]!);
      // The quote as the client sends it (client/signing.ts signRfqQuote): integers as decimal strings, the two expiries as numbers.
      const wire = { ...quote, price: price.toString(), size: SIZE.toString(), nonce: '0', quoteExpiry: nowSec + QUOTE_TTL_S, strike: s.strike, optionExpiry: s.expiry };
      await post(v.port, '/api/mm/quotes/submit', v.setup.tokens[mm]!, { ...wire, signature: mmSignature, requestId: request.requestId });
      const fill: FillQuoteMessage = { quoteId: rfqQuoteDigestHex(separator, quote), portfolioId: 0n, fillSize: SIZE, nonce: v.nonces[taker]!++, deadline: BigInt(nowSec + 300) };
      const signature = signDigest(fillQuoteDigest(separator, fill), keys[taker]!);
      const reply = await post(v.port, '/api/rfq/fill', v.setup.tokens[taker]!, { quote: wire, mmSignature, fillSize: SIZE.toString(), portfolioId: 0, signature, nonce: fill.nonce.toString(), deadline: fill.deadline.toString() });
      if (reply.mode !== 'relay') throw new Error(`settlement rfq: the fill was answered ${JSON.stringify(reply).slice(0, 400)}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: WALLETS }, (_, w) => worker(w, Math.floor(count / WALLETS) + (w < count % WALLETS ? 1 : 0))));
  return count / ((performance.now() - start) / 1000);
}

/** The RFQ phase: `warmup` fills drained, then `fills` fills as a backlog, drained. */
export async function rfqPhase(v: TimedVenue, warmup: number, fills: number): Promise<RfqFigures> {
  const markets = await v.ask({ type: 'markets' });
  if (markets.type !== 'markets') throw new Error(`settlement rfq: unexpected answer ${markets.type}`);
  // The venue's clock runs at real speed from its answer on (bench/lib/benchClock.ts).
  const asked = performance.now();
  const venueNowMs = () => markets.nowMs + (performance.now() - asked);
  const ids = new Set(v.setup.series.map((s) => s.seriesId));
  const series = markets.series.filter((s) => ids.has(s.seriesId));
  if (series.length === 0) throw new Error('settlement rfq: none of the setup series is live');
  const separator = domainSeparator(markets.rfqDomain);

  // The positions the RFQ fills add to: wallet w + 1 sells to wallet w on series w mod 8, one pair after another on one connection.
  await v.reset();
  const book: BenchOrder[] = [];
  for (let w = 0; w < WALLETS; w++) {
    const s = series[w % series.length]!;
    book.push({ wallet: (w + 1) % WALLETS, seriesId: s.seriesId, expiry: s.expiry, isBuy: false, tick: s.markTick, size: SIZE }, { wallet: w, seriesId: s.seriesId, expiry: s.expiry, isBuy: true, tick: s.markTick, size: SIZE });
  }
  const conn = await Conn.open(v.port);
  try {
    const round = await closedLoop([conn], presignOrders(v.prefix, v.setup, book, v.nonces), { i: 0 }, 60_000, 1);
    if (round.errors > 0) throw new Error(`settlement rfq: ${round.errors} of the positions' orders failed (first status ${round.firstError}: ${firstErrorBody()})`);
  } finally {
    conn.close();
  }
  const opened = await v.drain();
  if (opened.fills !== WALLETS) throw new Error(`settlement rfq: ${opened.fills} book trades for the ${WALLETS} positions`);

  await v.reset();
  await rfqFills(v, venueNowMs, separator, series, warmup);
  await v.drain();

  await v.reset();
  await v.pause();
  const madeAt = await rfqFills(v, venueNowMs, separator, series, fills);
  await v.resume();
  const d = await v.drain();
  if (d.fills !== fills) throw new Error(`settlement rfq: ${d.fills} fills on chain, ${fills} made`);
  const full = d.batches.filter((b) => b.fills === 100);
  if (full.length === 0) throw new Error('settlement rfq: no 100-fill batch');
  const rate = d.fills / (d.spanMs / 1000);
  const gasPerFill = Math.round(percentile(full.map((b) => b.gasUsed / b.fills), 50));
  process.stderr.write(`# rfq: ${d.fills} RFQ fills (made at ${Math.round(madeAt)}/s), settled at ${Math.round(rate)} fills/s; gas ${gasPerFill} a fill in ${full.length} full batches\n`);
  return {
    what: `RFQ fills over HTTP (request, signed quote, signed fill), ${WALLETS} takers each buying 0.01 contract from its own market maker on one series, adding to positions held; a backlog of ${fills} drained on 1-second blocks, from the resume to the last included; gas the median of the 100-fill batches`,
    fillsPerSecond: Math.round(rate),
    gasPerFill,
    fills: d.fills,
    madeAt: Math.round(madeAt),
    spanMs: Math.round(d.spanMs),
    batches: d.batches.length,
    fullBatches: full.length,
  };
}
