/**
 * A venue with two pairs listed and priced, and a command builder that numbers commands
 * and advances the clock, for engine tests.
 */
import { keccak256, toHex } from 'viem';
import { Venue, type ApplyResult } from '../../../engine/venue.ts';
import type { CommandBody, Command, PlaceOrder } from '../../../engine/commands.ts';
import type { Hex } from '../../../engine/domain/hex.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';
import { defaultVenueConfig, type VenueConfig } from '../../../engine/config.ts';
import { WireEvents } from '../../../engine/wire.ts';

/** Monday 2026-01-05 00:00:00 UTC. */
export const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
export const BTC = pairIdOf('BTC-USDC');
export const ETH = pairIdOf('ETH-USDC');
export const ALICE = '0x00000000000000000000000000000000000A11CE';
export const BOB = '0x0000000000000000000000000000000000000B0B';
export const CAROL = '0x000000000000000000000000000000000000CA01';
export const MM = '0x00000000000000000000000000000000000000AA';

export const usdc = (n: number | bigint) => BigInt(n) * 1_000_000n;
export const wad = (n: number) => (BigInt(Math.round(n * 1e6)) * WAD) / 1_000_000n;

export class Harness {
  readonly venue: Venue;
  seq = 0;
  ts: number;
  private orderCounter = 0;
  private nonces = new Map<string, bigint>();
  readonly log: Command[] = [];
  /** The venue's events in wire form (engine/wire.ts), as the gateway converts them: what the tests read. */
  readonly wire = new WireEvents();

  constructor(config: Partial<VenueConfig> = {}, start = T0) {
    this.venue = Venue.create({ ...defaultVenueConfig, ...config });
    this.ts = start;
  }

  /** Apply a command `advanceMs` after the previous one; its events in wire form. */
  run(body: CommandBody, advanceMs = 1): ApplyResult {
    this.ts += advanceMs;
    const cmd = { ...body, seq: ++this.seq, ts: this.ts } as Command;
    this.log.push(cmd);
    return this.wire.result(this.venue.apply(cmd));
  }

  ok(body: CommandBody, advanceMs = 1): ApplyResult & { ok: true } {
    const r = this.run(body, advanceMs);
    if (!r.ok) throw new Error(`expected ${body.type} to succeed, got ${r.rejection.code} ${JSON.stringify(r.rejection.details ?? {})}`);
    return r;
  }

  nextNonce(owner: string): bigint {
    const n = (this.nonces.get(owner) ?? 0n) + 1n;
    this.nonces.set(owner, n);
    return n;
  }

  orderId(): Hex {
    return keccak256(toHex(`order-${++this.orderCounter}`));
  }

  /** A place entry with sensible defaults; price in human units on the pair's tick grid. */
  order(owner: string, seriesId: Hex, isBuy: boolean, price: number, size: number, extra: Partial<PlaceOrder> = {}): PlaceOrder {
    const series = this.venue.state.series.get(seriesId);
    const pair = series ? this.venue.state.pairs.get(series.spec.pairId)! : { tickDecimals: 2 };
    const tick = Math.round(price * 10 ** pair.tickDecimals);
    return {
      orderId: this.orderId(),
      owner,
      portfolioId: 1,
      seriesId,
      isBuy,
      tick,
      size: wad(size),
      expiry: series ? series.spec.expiry : Math.floor(this.ts / 1000) + 86_400,
      nonce: this.nextNonce(owner),
      deadline: Math.floor(this.ts / 1000) + 300,
      ...extra,
    };
  }

  /** Fund an account: portfolio 1 created (if needed) with `amount` USDC. */
  fund(owner: string, amount: bigint, portfolioId = 1): void {
    if (portfolioId > 0 && this.venue.state.accounts.portfolio(owner, portfolioId) === undefined) this.ok({ type: 'create_portfolio', owner });
    this.ok({ type: 'deposit', owner, portfolioId, amount });
  }

  /** A live series of a pair near the money: the nearest expiry's strike closest to spot. */
  atm(pairId: Hex, isCall: boolean): Hex {
    const s = this.venue.state;
    const spot = s.oracles.get(pairId)!.spot;
    let best: { id: Hex; expiry: number; dist: bigint } | null = null;
    for (const a of s.series.values()) {
      if (a.spec.pairId !== pairId || a.spec.isCall !== isCall || a.settled) continue;
      const dist = a.spec.strike > spot ? a.spec.strike - spot : spot - a.spec.strike;
      if (!best || a.spec.expiry < best.expiry || (a.spec.expiry === best.expiry && dist < best.dist)) best = { id: a.spec.seriesId, expiry: a.spec.expiry, dist };
    }
    return best!.id;
  }
}

/** Two pairs listed, priced (BTC 100,000, ETH 3,500) and their series listed. */
export function listedVenue(config: Partial<VenueConfig> = {}): Harness {
  const h = new Harness(config);
  for (const [symbol, underlying, tickDecimals] of [
    ['BTC-USDC', 'BTC', 2],
    ['ETH-USDC', 'ETH', 3],
  ] as const) {
    h.ok({ type: 'list_pair', pair: { symbol, underlying, quote: 'USDC', tickDecimals, minSize: WAD / 100n, sizeStep: WAD / 100n, maxCallOI: 0n, maxPutOI: 0n } });
  }
  h.ok({ type: 'oracle', pairId: BTC, spot: 100_000n * WAD, volatility: (6n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] });
  h.ok({ type: 'oracle', pairId: ETH, spot: 3_500n * WAD, volatility: (7n * WAD) / 10n, riskFreeRate: WAD / 20n, marks: [] });
  h.ok({ type: 'clock' });
  return h;
}

/** Apply commands to `venue` with their events in wire form, the converter seeded by its image (as the gateway does after a restore). */
export function wireApply(venue: Venue): (c: Command) => ApplyResult {
  const w = new WireEvents();
  w.learn(venue.imageEvents());
  return (c) => w.result(venue.apply(c));
}
