/**
 * bench/settlement's expiry phase (docs/chain.md "Items": SETTLEMENT_PRICE, SERIES_SETTLED,
 * SETTLE_POSITION; docs/engine.md "Listing and settlement"), in the timed venue
 * (bench/lib/settlementTimed.ts), whose clock this process moves.
 *
 * - Positions: every series of the nearest expiry (calls and puts of every pair), each traded
 *   by all the wallets, the even ones selling 0.01 contract at the mark and the odd ones buying
 *   it (signed orders over HTTP, bench/lib/signedOrders.ts): one position a wallet a series.
 *   Every fill on chain before the expiry.
 * - The expiry: the venue's clock moved a minute past 08:00 UTC of that expiry (the child's
 *   injected clock, over IPC), then the clock command, which settles every series due; the
 *   relayer posts the settlement price signed by the oracle key, marks each series settled and
 *   pays one SETTLE_POSITION a position, in batches cut at SETTLE_MAX_GAS. The same command lists
 *   the day the listing window reaches (SERIES items in the first batches).
 * - Positions settled a second: the positions / the time from the clock command's start to the
 *   last batch holding a SETTLE_POSITION included (a receipt). Gas per position: the median of
 *   the batches holding SETTLE_POSITION items only (their receipts' gas used / positions:
 *   calldata and the batch's base shared among them, the refunds of the position slots emptied
 *   taken off, as paid); `allInGasPerPosition`: every batch the expiry made / the positions.
 *   A wallet's cash is written by its first position in a batch: the later ones find it warm.
 */
import { closedLoop, Conn, firstErrorBody } from './httpLoad.ts';
import { presignOrders, WALLETS, type BenchOrder } from './signedOrders.ts';
import { percentile } from './stats.ts';
import type { TimedVenue } from './settlementTimed.ts';

/** Connections the positions' orders go over, and the most their sending may take. */
const CONNS = 32;
const ORDERS_MS = 120_000;

export type ExpiryFigures = {
  what: string;
  positionsPerSecond: number;
  gasPerPosition: number;
  positions: number;
  series: number;
  /** Gas of every batch after the expiry (settlement prices, series settled, new listings included) / positions. */
  allInGasPerPosition: number;
  /** The clock command's own time, from its start to its commit (ms), within `spanMs`. */
  commandMs: number;
  spanMs: number;
  batches: number;
  /** Items of the batches after the expiry, by kind. */
  items: Record<string, number>;
  expiry: string;
};

export async function expiryPhase(v: TimedVenue): Promise<ExpiryFigures> {
  const markets = await v.ask({ type: 'markets' });
  if (markets.type !== 'markets') throw new Error(`settlement expiry: unexpected answer ${markets.type}`);
  const expiry = Math.min(...markets.series.map((s) => s.expiry));
  const due = markets.series.filter((s) => s.expiry === expiry);
  const orders: BenchOrder[] = due.flatMap((s) => Array.from({ length: WALLETS }, (_, w) => ({ wallet: w, seriesId: s.seriesId, expiry: s.expiry, isBuy: w % 2 === 1, tick: s.markTick, size: 10n ** 16n })));
  const reqs = presignOrders(v.prefix, v.setup, orders, v.nonces);

  await v.reset();
  const conns = await Promise.all(Array.from({ length: CONNS }, () => Conn.open(v.port)));
  const cursor = { i: 0 };
  try {
    const round = await closedLoop(conns, reqs, cursor, ORDERS_MS, 1);
    if (round.errors > 0) throw new Error(`settlement expiry: ${round.errors} orders failed (first status ${round.firstError}: ${firstErrorBody()})`);
  } finally {
    conns.forEach((c) => c.close());
  }
  if (cursor.i !== reqs.length) throw new Error(`settlement expiry: ${reqs.length - cursor.i} of ${reqs.length} orders not sent within ${ORDERS_MS} ms`);
  const traded = await v.drain();
  if (traded.fills !== orders.length / 2) throw new Error(`settlement expiry: ${traded.fills} fills from ${orders.length} orders (${orders.length / 2} expected)`);
  process.stderr.write(`# expiry ${new Date(expiry * 1000).toISOString()}: ${due.length} series, ${traded.fills} fills on chain; the venue's clock to a minute past it\n`);

  const moved = await v.ask({ type: 'advance', ms: Math.max(0, expiry * 1000 + 60_000 - markets.nowMs) });
  if (moved.type !== 'clock' || moved.nowMs < expiry * 1000) throw new Error(`settlement expiry: the venue's clock did not move past the expiry (${JSON.stringify(moved)})`);
  const r = await v.ask({ type: 'expire' });
  if (r.type !== 'expired') throw new Error(`settlement expiry: unexpected answer ${r.type}`);
  if (r.positions !== orders.length) throw new Error(`settlement expiry: ${r.positions} positions settled, ${orders.length} held`);

  const pure = r.batches.filter((b) => Object.keys(b.items).length === 1 && (b.items.SETTLE_POSITION ?? 0) > 0);
  const withPositions = pure.length > 0 ? pure : r.batches.filter((b) => (b.items.SETTLE_POSITION ?? 0) > 0);
  const gasPerPosition = Math.round(percentile(withPositions.map((b) => b.gasUsed / b.items.SETTLE_POSITION!), 50));
  const allIn = Math.round(r.batches.reduce((a, b) => a + b.gasUsed, 0) / r.positions);
  const items: Record<string, number> = {};
  for (const b of r.batches) for (const [k, n] of Object.entries(b.items)) items[k] = (items[k] ?? 0) + n;
  const rate = r.positions / (r.spanMs / 1000);
  process.stderr.write(`# expiry: ${r.positions} positions of ${r.series} series settled at ${Math.round(rate)} positions/s (the clock command ${Math.round(r.commandMs)} ms of ${Math.round(r.spanMs)} ms); gas ${gasPerPosition} a position (${pure.length} batches of positions only), ${allIn} all in over ${r.batches.length} batches\n`);
  return {
    what: `every series of the nearest expiry traded by ${WALLETS} wallets (one position each a series), on chain; the venue's clock past 08:00 UTC, then its clock command: positions / the time from the command to the last SETTLE_POSITION's batch included, on 1-second blocks; gas the median of the batches of SETTLE_POSITION items only${pure.length > 0 ? '' : ' (none: of the batches holding any)'}`,
    positionsPerSecond: Math.round(rate),
    gasPerPosition,
    positions: r.positions,
    series: r.series,
    allInGasPerPosition: allIn,
    commandMs: Math.round(r.commandMs),
    spanMs: Math.round(r.spanMs),
    batches: r.batches.length,
    items,
    expiry: new Date(expiry * 1000).toISOString(),
  };
}
