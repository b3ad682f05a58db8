/**
 * The margin book's audit (marginBook.ts `verify`): its kept figures and lists compared with a
 * book rebuilt from scratch over the same portfolios. For tests and audits, off the hot path; it
 * reads the rows only (marginRows.ts), so it sits below the book.
 */
import type { Portfolio } from '../actors/portfolio.ts';
import { SCENARIOS } from './margin.ts';
import { STRIDE, POS, ORD, FLOOR_POS, FLOOR_ORD } from './exposure.ts';
import type { MarginRows } from './marginRows.ts';

/** The first difference between the kept rows and `fresh` (rebuilt from scratch over the same portfolios, stale exposures revalued first), or null. */
export function verifyRows(kept: MarginRows, fresh: MarginRows): string | null {
  for (const anchor of new Set<Portfolio>([...kept.byAnchor.keys(), ...fresh.byAnchor.keys()])) {
    const k = figures(kept, kept.byAnchor.get(anchor) ?? -1);
    const f = figures(fresh, fresh.byAnchor.get(anchor) ?? -1);
    const who = `${anchor.owner}/${anchor.id}`;
    for (let s = 0; s < SCENARIOS; s++) if (k.pos[s] !== f.pos[s] || k.ord[s] !== f.ord[s]) return `${who}: scenario ${s} differs (${k.pos[s]}/${k.ord[s]} kept, ${f.pos[s]}/${f.ord[s]} rebuilt)`;
    for (const field of ['floorPos', 'floorOrd', 'premium', 'owed', 'markValue', 'buyReserve', 'positions'] as const) {
      if (k[field] !== f[field]) return `${who}: ${field} ${k[field]} kept, ${f[field]} rebuilt`;
    }
    if (k.exposures !== f.exposures) return `${who}: ${k.exposures} exposures kept, ${f.exposures} rebuilt`;
    const a = kept.byAnchor.get(anchor);
    const linked = a === undefined ? null : verifyLinks(kept, a);
    if (linked !== null) return `${who}: ${linked}`;
  }
  return null;
}

/** An account's kept figures as plain values (zeros for none), for verify. */
function figures(rows: MarginRows, a: number) {
  const num = rows.accounts.num;
  const base = a * STRIDE;
  const none = a === -1;
  return {
    pos: Array.from({ length: SCENARIOS }, (_, s) => (none ? 0 : num[base + POS + s]!)),
    ord: Array.from({ length: SCENARIOS }, (_, s) => (none ? 0 : num[base + ORD + s]!)),
    floorPos: none ? 0 : num[base + FLOOR_POS]!,
    floorOrd: none ? 0 : num[base + FLOOR_ORD]!,
    ...(none ? { premium: 0n, owed: 0n, markValue: 0n, buyReserve: 0n } : rows.cashOf(a)),
    positions: none ? 0 : rows.accounts.positions[a]!,
    exposures: none ? 0 : rows.accounts.expCount[a]!,
  };
}

/** Each open order of the account's portfolios is in the list of its series' exposure there, and nothing else (no order outside them) is. */
function verifyLinks(rows: MarginRows, a: number): string | null {
  const acc = rows.accounts.objects[a]!;
  const ex = rows.exposures;
  const orders = rows.orders;
  const listed = new Set<number>();
  for (const q of acc.single ? [acc.anchor] : rows.members(acc.anchor)) {
    for (const o of orders.values(q.openOrders)) {
      listed.add(o);
      const e = ex.exposureOf(o);
      if (e === -1 || rows.pairs.get(a, rows.seriesRow.get(orders.seriesId[o]!) ?? -1) !== e) return `order ${orders.orderId[o]} is not in its exposure's list`;
    }
  }
  let counted = 0;
  for (let e = rows.accounts.expHead[a]!; e !== -1; e = ex.aNext[e]!) {
    const seriesId = rows.seriesIds[ex.series[e]!]!;
    if (ex.account[e] !== a || rows.pairs.get(a, ex.series[e]!) !== e) return `exposure ${seriesId} is not indexed`;
    let n = 0;
    for (let o = ex.first[e]!; o !== -1; o = ex.oNext[o]!) {
      n++;
      if (ex.exposureOf(o) !== e || orders.seriesId[o] !== seriesId || !listed.has(o)) return `exposure ${seriesId} lists order ${orders.orderId[o]} wrongly`;
    }
    if (n !== ex.orderCount[e]) return `exposure ${seriesId} counts ${ex.orderCount[e]} orders and lists ${n}`;
    counted += n;
  }
  return counted === listed.size ? null : `${listed.size} open orders in the portfolios, ${counted} in the exposures`;
}
