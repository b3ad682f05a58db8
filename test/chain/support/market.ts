/**
 * A listed market and funded traders on a chain fixture: one pair, one call series, traders
 * with cash in portfolio 1, and helpers that sign orders and write fills.
 */
import type { Address, Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { BatchWriter } from '../../../chain/items.ts';
import { accountOf, T0, WAD, type Fixture } from './fixture.ts';
import { pairIdOf, seriesIdOf } from './ids.ts';

export const TICK_DECIMALS = 2;
/** The WAD value of one tick at TICK_DECIMALS. */
export const TICK_VALUE = 10n ** BigInt(18 - TICK_DECIMALS);
export const EXPIRY = T0 + 30 * 86400;
export const STRIKE = 80_000n * WAD;
export const GOOD_TILL = T0 + 86400;

export type Market = Awaited<ReturnType<typeof listMarket>>;

export async function listMarket(fx: Fixture, name: string, traders: number, cash = 10n ** 15n) {
  const pairId = pairIdOf(`${name}-USDC`);
  const seriesId = seriesIdOf(pairId, STRIKE, EXPIRY, true);
  const accounts: PrivateKeyAccount[] = [];
  for (let i = 0; i < traders; i++) accounts.push(accountOf(`${name}:trader:${i}`));
  const w = new BatchWriter();
  w.pair(pairId, TICK_DECIMALS);
  w.series(pairId, STRIKE, EXPIRY, true);
  for (const acc of accounts) w.mint(acc.address, 1n, cash);
  await fx.settle(w);
  let nonce = 1n;
  const market = {
    pairId,
    seriesId,
    accounts,
    /** A signed order of `account` on the series, portfolio 1, a fresh nonce. */
    async order(account: PrivateKeyAccount, isBuy: boolean, tick: number, size: bigint, extra: { expiry?: number; deadline?: bigint; portfolioId?: bigint; seriesId?: Hex; nonce?: bigint } = {}) {
      return fx.signOrder(account, {
        seriesId: extra.seriesId ?? seriesId,
        portfolioId: extra.portfolioId ?? 1n,
        isBuy,
        tick,
        size,
        expiry: extra.expiry ?? GOOD_TILL,
        nonce: extra.nonce ?? nonce++,
        deadline: extra.deadline ?? BigInt(GOOD_TILL),
      });
    },
    /** Writes a fill of `size` between two fresh orders (maker sells when `makerSells`) at `tick`, fees as given. */
    async fill(w: BatchWriter, maker: PrivateKeyAccount, taker: PrivateKeyAccount, size: bigint, tick: number, makerSells = true, fees: { maker?: bigint; taker?: bigint } = {}) {
      const m = await market.order(maker, !makerSells, tick, size);
      const t = await market.order(taker, makerSells, tick, size);
      const mi = w.order(m.orderId, m.order);
      const ti = w.order(t.orderId, t.order);
      w.fill(mi, ti, size, fees.maker ?? 0n, fees.taker ?? 0n);
      return { maker: m, taker: t };
    },
  };
  return market;
}

/** The fee cap of a fill: premium x 12.5%. */
export function capOf(size: bigint, tick: number): bigint {
  const premium = (size * BigInt(tick) * TICK_VALUE) / 10n ** 30n;
  return (premium * 125n) / 1000n;
}

export type Addressed = { address: Address };
