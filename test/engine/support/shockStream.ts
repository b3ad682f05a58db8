/**
 * Seeded command streams that liquidate: thinly funded wallets sell options into a liquidity
 * provider's bids and rest far-away sells, the provider keeps quotes around the marks, and the
 * oracle (in manual mode: oracle commands) jumps by random shocks and drifts back, so that
 * portfolios fall below maintenance margin with and without book liquidity, some into
 * bankruptcy against a small insurance fund, longs beside shorts (sold by the pass). Bodies read the harness's live state: the caller
 * applies each before taking the next.
 */
import type { CommandBody } from '../../../engine/commands.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { Harness, BTC, usdc } from './venueFixture.ts';
import { setupBodies } from './randomStream.ts';
import { prng } from '../domain/prng.ts';

const THIN = Array.from({ length: 8 }, (_, i) => `0x${(0x7000 + i).toString(16).padStart(40, '0')}`);
const LP = '0x0000000000000000000000000000000000000F0F';
const VOL = (6n * WAD) / 10n;

export function* shockBodies(h: Harness, seed: number, n: number): Generator<{ body: CommandBody; advance: number }> {
  yield* setupBodies();
  const rnd = prng(seed);
  yield { body: { type: 'insurance_fund_deposit', amount: usdc(10_000), reason: 'seed' }, advance: 1 };
  yield { body: { type: 'create_portfolio', owner: LP }, advance: 1 };
  yield { body: { type: 'deposit', owner: LP, portfolioId: 1, amount: usdc(100_000_000) }, advance: 1 };
  for (const owner of THIN) {
    yield { body: { type: 'create_portfolio', owner }, advance: 1 };
    yield { body: { type: 'deposit', owner, portfolioId: 1, amount: usdc(20_000 + Math.floor(rnd() * 40_000)) }, advance: 1 };
  }
  let spot = 100_000;
  const near = (): Hex[] => {
    const live = [...h.venue.state.series.values()].filter((s) => s.spec.pairId === BTC && !s.settled && s.spec.expiry * 1000 > h.ts + 3_600_000);
    live.sort((a, b) => a.spec.expiry - b.spec.expiry || Math.abs(Number(a.spec.strike) / 1e18 - spot) - Math.abs(Number(b.spec.strike) / 1e18 - spot));
    return live.slice(0, 8).map((s) => s.spec.seriesId);
  };
  const markOf = (seriesId: Hex) => Math.max(1, Math.round(Number(h.venue.state.series.get(seriesId)!.marks!.mark) / 1e18));
  const oracle = (): { body: CommandBody; advance: number } => ({ body: { type: 'oracle', pairId: BTC, spot: BigInt(Math.round(spot)) * WAD, volatility: VOL, riskFreeRate: WAD / 20n, marks: [] }, advance: 1000 });
  for (let i = 0; i < n; i++) {
    const pool = near();
    if (pool.length === 0) {
      yield { body: { type: 'clock' }, advance: 1000 };
      continue;
    }
    const x = rnd();
    const seriesId = pool[Math.floor(rnd() * pool.length)]!;
    const owner = THIN[Math.floor(rnd() * THIN.length)]!;
    const size = 0.1 * (1 + Math.floor(rnd() * 5));
    if (x < 0.35) {
      // A thin wallet sells into the provider's bid at the mark (refused when its margin is short).
      const px = markOf(seriesId);
      yield { body: { type: 'place', orders: [h.order(LP, seriesId, true, px, size)] }, advance: 1 };
      yield { body: { type: 'place', orders: [h.order(owner, seriesId, false, px, size)] }, advance: 1 };
    } else if (x < 0.42) {
      // A thin wallet buys from the provider's ask at the mark: longs beside its shorts, which
      // a pass may sell when they carry the largest margin contribution.
      const px = markOf(seriesId);
      yield { body: { type: 'place', orders: [h.order(LP, seriesId, false, px, size)] }, advance: 1 };
      yield { body: { type: 'place', orders: [h.order(owner, seriesId, true, px, size)] }, advance: 1 };
    } else if (x < 0.5) {
      // The provider quotes near the mark: liquidity the liquidation pass may take inside its band.
      const px = markOf(seriesId);
      const isBuy = rnd() < 0.5;
      yield { body: { type: 'place', orders: [h.order(LP, seriesId, isBuy, Math.max(1, Math.round(px * (isBuy ? 1 - rnd() * 0.05 : 1 + rnd() * 0.08))), size)] }, advance: 1 };
    } else if (x < 0.58) {
      // A resting sell far above the mark: margin for the orders-only case.
      yield { body: { type: 'place', orders: [h.order(owner, seriesId, false, Math.round(markOf(seriesId) * 1.6), size)] }, advance: 1 };
    } else if (x < 0.68) {
      // A shock, mostly upward (the thin wallets are mostly short); one in five is a jump of
      // about 40%, either way, past what the margin covers: bankruptcies.
      spot *= rnd() < 0.2 ? Math.exp((rnd() < 0.6 ? 1 : -1) * 0.35) : Math.exp((rnd() - 0.3) * 0.3);
      yield oracle();
    } else if (x < 0.76) {
      spot += (100_000 - spot) * 0.5;
      yield oracle();
    } else if (x < 0.9) {
      yield { body: { type: 'clock' }, advance: Math.floor(rnd() * 60_000) };
    } else {
      yield { body: { type: 'deposit', owner, portfolioId: 1, amount: usdc(5_000) }, advance: 1 };
    }
  }
}
