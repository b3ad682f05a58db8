/**
 * Test support for the account tests: orders entered straight into the engine through the
 * command pipeline (signature checks are the order-entry routes' business, not what these
 * tests are about), and a liquid series to trade.
 */
import { signOrder } from '../../support/signedOrders.ts';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { Hex } from '../../../engine/domain/hex.ts';
import { pairIdOf } from '../../../engine/domain/ids.ts';
import type { SeriesActor } from '../../../engine/actors/series.ts';
import type { ApplyResult } from '../../../engine/venue.ts';
import type { App } from '../../../gateway/app.ts';

export const USDC = 1_000_000n; // COLLATERAL6 per 1 USDC
export const WAD = 10n ** 18n;

/** The nearest-expiry series of a pair (more than an hour out) with the strike closest to spot. */
export function atTheMoney(app: App, pairSymbol = 'BTC-USDC', isCall = true): SeriesActor {
  const state = app.engine.state;
  const pairId = pairIdOf(pairSymbol);
  const spot = state.oracles.get(pairId)!.spot;
  const live = [...state.series.values()].filter((s) => s.spec.pairId === pairId && s.spec.isCall === isCall && !s.settled && s.spec.expiry > state.nowSec + 3600);
  const expiry = Math.min(...live.map((s) => s.spec.expiry));
  const dist = (s: SeriesActor) => (s.spec.strike > spot ? s.spec.strike - spot : spot - s.spec.strike);
  return live.filter((s) => s.spec.expiry === expiry).sort((a, b) => (dist(a) < dist(b) ? -1 : dist(a) > dist(b) ? 1 : 0))[0]!;
}

/** A price on the pair's tick grid near the series' mark (WAD), rounded up. */
export function priceNearMark(app: App, series: SeriesActor): bigint {
  const pair = app.engine.state.pairs.get(series.spec.pairId)!;
  const tick = 10n ** BigInt(18 - pair.tickDecimals);
  const mark = series.marks!.mark;
  return ((mark + tick - 1n) / tick) * tick;
}

let nonce = 1n;

export type DirectOrder = { owner: string; portfolioId: number; series: SeriesActor; isBuy: boolean; price: bigint; size: bigint };

/** Submit a place command as if it had been signed and relayed; returns the order id and the engine's result. */
export async function placeDirect(app: App, o: DirectOrder): Promise<{ orderId: Hex; result: ApplyResult }> {
  const state = app.engine.state;
  const pair = state.pairs.get(o.series.spec.pairId)!;
  const fields = { seriesId: o.series.spec.seriesId, portfolioId: o.portfolioId, isBuy: o.isBuy, tick: Number(o.price / 10n ** BigInt(18 - pair.tickDecimals)), size: o.size, expiry: o.series.spec.expiry, nonce: nonce++, deadline: state.nowSec + 300 };
  const config = app.services.config;
  const signed = signOrder({ serviceName: config.serviceName, chainId: config.chainId, orderBook: config.contracts.orderBook }, o.owner, fields);
  const orderId = signed?.orderId ?? (`0x${randomBytes(32).toString('hex')}` as Hex);
  const result = await app.services.pipeline.submit({
    type: 'place',
    orders: [{ ...fields, orderId, owner: getAddress(o.owner), ...(signed !== null ? { signature: signed.signature } : {}) }],
  });
  if (!result.ok) throw new Error(`place refused: ${result.rejection.code} ${JSON.stringify(result.rejection.details ?? {})}`);
  return { orderId, result };
}
