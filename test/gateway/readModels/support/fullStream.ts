/**
 * A seeded command stream that exercises every event type, for the read-model sufficiency
 * tests: the engine's random stream (orders, cancels, replaces with instructions, oracle
 * moves, clocks that cross an expiry and settle, deposits) with, interleaved, what it lacks:
 * a market maker (set_mmm, portfolio 0 orders), RFQ auctions (request, quotes, fills, nonce
 * increments), portfolios created, withdrawals, transfers, open-interest caps, referrals
 * (codes and their use before the first trade; the rebates follow at the takers' fills), chain
 * webhooks, and price shocks that liquidate a thinly funded wallet (orders cancelled, closes
 * against the book and the insurance fund, bankruptcy beyond a small fund: bad debt), and
 * strategies (all-or-nothing packages of FOK legs). Bodies are
 * generated against the harness's live state, so the caller applies each before the next.
 */
import type { CommandBody } from '../../../../engine/commands.ts';
import type { VenueEvent } from '../../../../engine/events.ts';
import type { Hex } from '../../../../engine/domain/hex.ts';
import { WAD } from '../../../../engine/domain/fixed.ts';
import { keccak256, toHex } from 'viem';
import { randomBodies } from '../../../engine/support/randomStream.ts';
import { Harness, BTC, ETH, usdc } from '../../../engine/support/venueFixture.ts';
import { prng } from '../../../engine/domain/prng.ts';
import { requestIdOf } from '../../../../engine/flows/rfq.ts';

export const STREAM_MMM = '0x00000000000000000000000000000000000000AA';
const TAKERS = ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002', '0x0000000000000000000000000000000000000003'];
/** A wallet of the engine's random stream that owns a referral code. */
const REFERRER = '0x0000000000000000000000000000000000000005';
const ZERO = '0x0000000000000000000000000000000000000000';
/** A thinly funded wallet that sells calls and is liquidated by the stream's shocks. */
export const STREAM_THIN = '0x0000000000000000000000000000000000007777';

export function* fullBodies(h: Harness, seed: number, n: number): Generator<{ body: CommandBody; advance: number }> {
  const rnd = prng(seed + 104_729);
  let quotes = 0;
  let i = 0;
  let mmmNonce = 0n;
  // Referrals, before anyone trades: two codes; three wallets apply the market maker's, one
  // wallet 5's (their taker fees pay rebates from then on).
  yield { body: { type: 'referral_code', owner: STREAM_MMM, code: 'STREAMMM' }, advance: 1 };
  yield { body: { type: 'referral_code', owner: REFERRER, code: 'WALLET5' }, advance: 1 };
  for (const owner of TAKERS) yield { body: { type: 'referral_apply', owner, code: owner === TAKERS[2] ? 'WALLET5' : 'STREAMMM' }, advance: 1 };
  for (const step of randomBodies(h, seed, n)) {
    yield step;
    i++;
    if (i === 20) {
      // The market maker: membership, cash in portfolio 0.
      yield { body: { type: 'set_mmm', address: STREAM_MMM, isMmm: true }, advance: 1 };
      yield { body: { type: 'deposit', owner: STREAM_MMM, portfolioId: 0, amount: usdc(20_000_000) }, advance: 1 };
      yield { body: { type: 'set_oi_caps', pairId: ETH, maxCallOI: 10_000n * WAD, maxPutOI: 10_000n * WAD }, advance: 1 };
      // A small insurance fund, and the wallet the shocks liquidate.
      yield { body: { type: 'insurance_fund_deposit', amount: usdc(1_000), reason: 'seed' }, advance: 1 };
      yield { body: { type: 'create_portfolio', owner: STREAM_THIN }, advance: 1 };
    }
    if (i < 20) continue;
    const x = rnd();
    const live = [...h.venue.state.series.values()].filter((s) => !s.settled && s.spec.expiry * 1000 > h.ts + 120_000 && s.marks !== null);
    if (live.length === 0) continue;
    const nowSec = Math.floor(h.ts / 1000);
    if (x < 0.06) {
      // The market maker quotes the book from portfolio 0.
      const s = live[Math.floor(rnd() * live.length)]!;
      const mark = Number(s.marks!.mark) / 1e18;
      const price = Math.max(0.1, Math.round(mark * (1 + (rnd() - 0.5) * 0.1) * 10) / 10);
      yield { body: { type: 'place', orders: [h.order(STREAM_MMM, s.spec.seriesId, rnd() < 0.5, price, 0.05, { portfolioId: 0 })] }, advance: 5 };
    } else if (x < 0.12) {
      // An auction: request, one or two quotes at once, then mostly a fill (else it expires).
      const s = live[Math.floor(rnd() * live.length)]!;
      const taker = TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      const takerIsBuying = rnd() < 0.5;
      const size = WAD / 10n;
      const requestId = requestIdOf(h.seq + 1); // the id the engine gives the next command's request
      yield { body: { type: 'rfq_request', taker, portfolioId: 1, seriesId: s.spec.seriesId, size, takerIsBuying, expiresAt: nowSec + 20 }, advance: 1 };
      if (!h.venue.state.rfq.requests.has(requestId)) continue;
      const mark = Number(s.marks!.mark) / 1e18;
      const quoteIds: Hex[] = [];
      for (let k = rnd() < 0.5 ? 1 : 2; k > 0; k--) {
        const quoteId = keccak256(toHex(`quote-${seed}-${++quotes}`));
        quoteIds.push(quoteId);
        const price = BigInt(Math.max(1, Math.round(mark * (0.95 + rnd() * 0.1) * 100))) * (WAD / 100n);
        yield { body: { type: 'rfq_quote', requestId, quote: { quoteId, mmm: STREAM_MMM, taker: rnd() < 0.5 ? ZERO : taker, seriesId: s.spec.seriesId, takerIsBuying, price, size, nonce: mmmNonce, quoteExpiry: nowSec + 15 } }, advance: 1 };
      }
      if (rnd() < 0.7) yield { body: { type: 'rfq_fill', requestId, quoteId: quoteIds[0]!, taker, portfolioId: 1, fillSize: size, nonce: h.nextNonce(taker), deadline: nowSec + 60 }, advance: 1 };
    } else if (x < 0.13) {
      mmmNonce++;
      yield { body: { type: 'mmm_nonce_increment', mmm: STREAM_MMM }, advance: 1 };
    } else if (x < 0.2) {
      const owner = TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      yield { body: { type: 'create_portfolio', owner }, advance: 1 };
      yield { body: { type: 'transfer', owner, fromPortfolioId: 1, toPortfolioId: 2, amount: usdc(1_000) }, advance: 1 };
    } else if (x < 0.22) {
      const owner = TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      yield { body: { type: 'withdraw', owner, portfolioId: 1, amount: usdc(500) }, advance: 1 };
    } else if (x < 0.235) {
      // A mass cancel of the market maker's or a taker's orders, by a random scope.
      const owner = rnd() < 0.5 ? STREAM_MMM : TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      const s = live[Math.floor(rnd() * live.length)]!;
      const y = rnd();
      const scope = y < 0.25 ? {} : y < 0.5 ? { pairId: s.spec.pairId } : y < 0.75 ? { seriesId: s.spec.seriesId, side: rnd() < 0.5 ? ('buy' as const) : ('sell' as const) } : { mmpOnly: false, portfolioId: owner === STREAM_MMM ? 0 : 1 };
      yield { body: { type: 'cancel_all', owner, scope, reason: rnd() < 0.5 ? 'mass_cancel' : 'disconnect' }, advance: 1 };
    } else if (x < 0.24) {
      // Chain webhooks: a deposit, a withdrawal confirmed, a relay of an open order reported.
      const owner = TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      const txHash = keccak256(toHex(`tx-${seed}-${i}`));
      const open = [...h.venue.state.orderIndex.keys()];
      const y = rnd();
      const event =
        y < 0.4 ? ({ kind: 'deposit', owner, portfolioId: 1, amount: usdc(100), txHash } as const)
        : y < 0.6 || open.length === 0 ? ({ kind: 'withdrawal_confirmed', owner, withdrawalId: `w${i}`, txHash } as const)
        : ({ kind: rnd() < 0.5 ? 'relay_confirmed' : 'relay_failed', orderIds: [open[Math.floor(rnd() * open.length)]!], txHash, reason: null } as const);
      yield { body: { type: 'chain_event', id: `evt-${seed}-${i}`, event }, advance: 1 };
    } else if (x < 0.26) {
      yield* shock(h, rnd, live);
    } else if (x < 0.265) {
      // The dead-man switch: armed for a few seconds (the stream's clocks fire it), sometimes disarmed.
      const owner = rnd() < 0.5 ? STREAM_MMM : TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      yield { body: { type: 'cancel_after', owner, timeoutMs: rnd() < 0.2 ? 0 : 1_000 + Math.floor(rnd() * 4_000) }, advance: 1 };
    } else if (x < 0.275) {
      // A strategy: two legs of one pair with some book, fill-or-kill at the top of the side each takes
      // (fills when the tops hold the size and are not the taker's own, else refused whole).
      const booked = live.filter((s) => s.book.bestAsk() >= 0 || s.book.bestBid() >= 0);
      if (booked.length === 0) continue;
      const a = booked[Math.floor(rnd() * booked.length)]!;
      const others = booked.filter((s) => s.spec.pairId === a.spec.pairId && s.spec.seriesId !== a.spec.seriesId);
      if (others.length === 0) continue;
      const b = others[Math.floor(rnd() * others.length)]!;
      const owner = TAKERS[Math.floor(rnd() * TAKERS.length)]!;
      const fok = { instructions: { timeInForce: 'FOK', postOnly: false, reduceOnly: false, mmp: false, clientOrderId: null } as const };
      const legs = [a, b].map((s) => {
        const isBuy = s.book.bestAsk() >= 0 && (s.book.bestBid() < 0 || rnd() < 0.5);
        const tick = isBuy ? s.book.bestAsk() : s.book.bestBid();
        const decimals = h.venue.state.pairs.get(s.spec.pairId)!.tickDecimals;
        return h.order(owner, s.spec.seriesId, isBuy, tick / 10 ** decimals, 0.01, fok);
      });
      yield { body: { type: 'strategy', strategyId: keccak256(toHex(`strategy-${seed}-${i}`)), orders: legs }, advance: 1 };
    }
  }
}

/**
 * A liquidating shock: the thin wallet (refunded) sells calls of the nearest BTC expiry into the
 * market maker's bid and rests a far sell; the spot jumps up 25-65% and comes back.
 */
function* shock(h: Harness, rnd: () => number, live: readonly { spec: { pairId: Hex; isCall: boolean; seriesId: Hex; expiry: number; strike: bigint }; marks: { mark: bigint } | null }[]): Generator<{ body: CommandBody; advance: number }> {
  const oracle = h.venue.state.oracles.get(BTC)!;
  const calls = live.filter((s) => s.spec.pairId === BTC && s.spec.isCall && s.spec.expiry * 1000 > h.ts + 3_600_000);
  if (calls.length === 0) return;
  calls.sort((a, b) => a.spec.expiry - b.spec.expiry || Number((a.spec.strike > oracle.spot ? a.spec.strike - oracle.spot : oracle.spot - a.spec.strike) - (b.spec.strike > oracle.spot ? b.spec.strike - oracle.spot : oracle.spot - b.spec.strike)));
  const s = calls[0]!;
  const px = Math.max(1, Math.round(Number(s.marks!.mark) / 1e18));
  yield { body: { type: 'deposit', owner: STREAM_THIN, portfolioId: 1, amount: usdc(10_000 + Math.floor(rnd() * 30_000)) }, advance: 1 };
  yield { body: { type: 'place', orders: [h.order(STREAM_MMM, s.spec.seriesId, true, px, 0.6, { portfolioId: 0 })] }, advance: 1 };
  yield { body: { type: 'place', orders: [h.order(STREAM_THIN, s.spec.seriesId, false, px, 0.6)] }, advance: 1 };
  yield { body: { type: 'place', orders: [h.order(STREAM_THIN, s.spec.seriesId, false, px * 2, 0.2)] }, advance: 1 };
  const jump = (oracle.spot * BigInt(125 + Math.floor(rnd() * 40))) / 100n;
  const back = oracle.spot;
  yield { body: { type: 'oracle', pairId: BTC, spot: jump, volatility: oracle.volatility, riskFreeRate: oracle.riskFreeRate, marks: [] }, advance: 1 };
  yield { body: { type: 'oracle', pairId: BTC, spot: back, volatility: oracle.volatility, riskFreeRate: oracle.riskFreeRate, marks: [] }, advance: 1 };
}

/** Apply a whole stream on a fresh harness, calling `each` after every command (after `events` has its events). */
export function runFullStream(seed: number, n: number, each: (h: Harness, index: number) => void, events?: (events: readonly VenueEvent[]) => void): Harness {
  const h = new Harness();
  let k = 0;
  for (const { body, advance } of fullBodies(h, seed, n)) {
    const r = h.run(body, advance);
    events?.(r.events);
    each(h, k++);
  }
  return h;
}

export { BTC, ETH };
