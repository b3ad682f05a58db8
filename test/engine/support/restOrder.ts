/**
 * An open order for margin-book tests: a slot of `orders` (engine/actors/openOrders.ts) held by
 * `p`, of `remaining` WAD at `price` WAD, in lots of `lot` (by default the largest power of ten
 * dividing `remaining` that leaves at most 2^53 - 1 lots). Its premium factor is 0, so the book
 * counts its reservation with the bigint formula (collateralOf), the reference the doubles
 * path must equal.
 */
import type { Hex } from '../../../engine/domain/hex.ts';
import type { OrderSlots } from '../../../engine/actors/openOrders.ts';
import type { Portfolio } from '../../../engine/actors/portfolio.ts';
import type { OrderRecord } from '../../../engine/actors/orderRecord.ts';
import { lotNumberOf } from '../../../engine/domain/lots.ts';
import { DEFAULT_INSTRUCTIONS } from '../../../engine/domain/instructions.ts';

const SAFE = 2n ** 53n - 1n;

export type TestOrder = { readonly orderId: Hex; readonly seriesId: Hex; readonly isBuy: boolean; readonly remaining: bigint; readonly price: bigint; readonly lot?: bigint; readonly ref?: number };

/** The slot of a new, unlisted open order (list and count it with MarginBook.addOrder). */
export function openTestOrder(orders: OrderSlots, p: Portfolio, o: TestOrder): number {
  let lot = o.lot;
  if (lot === undefined) {
    lot = 1n;
    while (o.remaining / lot > SAFE && o.remaining % (lot * 10n) === 0n) lot *= 10n;
  }
  if (o.remaining % lot !== 0n || o.remaining / lot > SAFE) throw new Error(`a test order of ${o.remaining} WAD needs a size step that leaves a safe number of lots`);
  const record = { orderId: o.orderId, seriesId: o.seriesId, ref: o.ref ?? 0, owner: p.owner, ownerIndex: 0, portfolioId: p.id, routedPortfolioId: p.id, isBuy: o.isBuy, tick: 0, lots: Number(o.remaining / lot), filledLots: 0, status: 'open', expiry: 0, createdAt: 0, instructions: DEFAULT_INSTRUCTIONS } satisfies OrderRecord;
  return orders.open(record, { pairId: `0x${'0'.repeat(64)}` as Hex, holder: p.handle, lots: record.lots, price: o.price, px: Number(o.price) / 1e18, lot, lotNumber: lotNumberOf(lot), perLotTick: 0 });
}
