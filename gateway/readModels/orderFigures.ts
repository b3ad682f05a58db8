/**
 * An engine order record in the interface's units: symbol, price and sizes in WAD. Shared
 * by the account views (`/api/account/orders`) and the order-entry read model
 * (`/api/mm/orders`), so both always show an order the same way.
 */
import type { OrderRecord } from '../../engine/actors/series.ts';
import type { VenueState } from '../../engine/state.ts';
import { tickToPrice } from '../../engine/domain/ticks.ts';

export type OrderFigures = { readonly symbol: string; readonly price: bigint; readonly size: bigint; readonly filled: bigint; readonly remaining: bigint };

export function orderFigures(state: VenueState, r: OrderRecord): OrderFigures | null {
  const series = state.series.get(r.seriesId);
  const pair = series && state.pairs.get(series.spec.pairId);
  if (!series || !pair) return null;
  const size = BigInt(r.lots) * pair.sizeStep;
  const filled = BigInt(r.filledLots) * pair.sizeStep;
  const open = r.status === 'open' || r.status === 'partial';
  return { symbol: series.spec.symbol, price: tickToPrice(r.tick, pair.tickDecimals), size, filled, remaining: open ? size - filled : 0n };
}
