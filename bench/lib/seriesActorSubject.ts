/**
 * bench/book's third subject: the same op stream through the whole engine (Venue.apply):
 * command dispatch, validation, nonce, risk pre-check of the owner's portfolio, matching,
 * fills with positions, premium and fees, and the events of each command. Places are
 * `place` commands, cancels `cancel` commands; IOC orders rest like GTC ones (the engine
 * has no IOC order type). Ticks map onto a BTC series' tick grid (tick 100,000 = 1,000 USDC).
 * Commands are built before timing, with flat id strings as the gateway's are; 1,000 funded
 * wallets trade, each with its own nonces from 0 up, as the server hands them out.
 */
import type { Command, PlaceOrder } from '../../engine/commands.ts';
import type { Hex } from '../../engine/domain/hex.ts';
import { WAD } from '../../engine/domain/fixed.ts';
import { Venue } from '../../engine/venue.ts';
import { listedVenue, BTC, usdc } from '../../test/engine/support/venueFixture.ts';
import type { OpStream } from '../book.ts';
import { measureAllocation } from './allocation.ts';

const OP_CANCEL = 2;

/** `setup`: the commands that listed and funded `venue` (for another engine to follow). */
type Prepared = { venue: Venue; setup: readonly Command[]; commands: Command[]; prefill: number };

export function prepare(s: OpStream, maxOwners = Infinity): Prepared {
  const h = listedVenue();
  let owners = 0;
  for (let i = 0; i < s.length; i++) owners = Math.max(owners, s.owner[i]! + 1);
  owners = Math.min(owners, maxOwners);
  const wallets = Array.from({ length: owners }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
  // 10^9 USDC a wallet: far beyond what the stream's orders need (10^8 and 10^12 give the same
  // results), and within 2^53 - 1 COLLATERAL6 (~9 x 10^9 USDC), so the engine's cash takes its
  // exact doubles, as every real account does; the wide bigint path beyond the bound has its own
  // tests. (Until 2026-11-27 the wallets held 10^12 USDC, all on the wide path.)
  for (const w of wallets) h.fund(w, usdc(1_000_000_000));
  const series = h.atm(BTC, true);
  const lot = WAD / 100n;
  const ownerOf = new Map<number, string>();
  const commands: Command[] = [];
  // Ids as the gateway hands them over: flat strings (a cancel's from JSON.parse of its body, a
  // place's from the structured clone of the pool's reply). A template literal makes a cons
  // string, and the engine's first Map lookup of each would flatten it too (~0.7 µs against
  // ~0.15 µs here): a cost of the benchmark's own making, not of the engine.
  const orderId = (ref: number): Hex => JSON.parse(`"0x${ref.toString(16).padStart(64, '0')}"`) as Hex;
  let seq = h.seq;
  let ts = h.ts;
  const expiry = Math.floor(ts / 1000) + 3600;
  const nonces = new Map<string, bigint>();
  const nextNonce = (w: string): bigint => {
    const n = nonces.get(w) ?? 0n;
    nonces.set(w, n + 1n);
    return n;
  };
  for (let i = 0; i < s.length; i++) {
    const ref = s.ref[i]!;
    if (s.kind[i] === OP_CANCEL) {
      const owner = ownerOf.get(ref) ?? wallets[0]!;
      commands.push({ type: 'cancel', cancels: [{ orderId: orderId(ref), owner, nonce: nextNonce(owner), deadline: expiry }], seq: ++seq, ts: ++ts });
    } else {
      const owner = wallets[s.owner[i]! % owners]!;
      ownerOf.set(ref, owner);
      const order: PlaceOrder = { orderId: orderId(ref), owner, portfolioId: 1, seriesId: series, isBuy: s.isBuy[i] === 1, tick: s.tick[i]!, size: BigInt(s.qty[i]!) * lot, expiry, nonce: nextNonce(owner), deadline: expiry };
      commands.push({ type: 'place', orders: [order], seq: ++seq, ts: ++ts });
    }
  }
  return { venue: h.venue, setup: h.log, commands, prefill: s.prefill };
}

/** ops/s through Venue.apply over the timed part of the stream (setup untimed). */
export function runSeriesActor(s: OpStream): number {
  return runPrepared(prepare(s));
}

/**
 * The same stream from 10 wallets instead of 1,000: each holds ~200 resting orders on the
 * series, as a market maker's quotes do, so a per-order cost that grows with the portfolio
 * shows here (and self-trade prevention fires more often).
 */
export function runSeriesActorMarketMakers(s: OpStream): number {
  return runPrepared(prepare(s, 10));
}

function runPrepared(p: Prepared): number {
  for (let i = 0; i < p.prefill; i++) p.venue.apply(p.commands[i]!);
  const start = process.hrtime.bigint();
  for (let i = p.prefill; i < p.commands.length; i++) p.venue.apply(p.commands[i]!);
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  return (p.commands.length - p.prefill) / secs;
}

/**
 * Bytes allocated per op of the timed loop through Venue.apply (1,000 wallets), and collections
 * per 1,000 ops (lib/allocation.ts). Run it warmed (after the timed rounds): the loop is the
 * same as runSeriesActor's, on a fresh venue with the prefill applied outside the measure.
 */
export function seriesActorAllocation(s: OpStream): { bytesPerOp: number; collectionsPer1000: number } {
  const p = prepare(s);
  for (let i = 0; i < p.prefill; i++) p.venue.apply(p.commands[i]!);
  const { venue, commands } = p;
  const r = measureAllocation(() => {
    for (let i = p.prefill; i < commands.length; i++) venue.apply(commands[i]!);
  });
  const ops = commands.length - p.prefill;
  return { bytesPerOp: Math.round(r.bytes / ops), collectionsPer1000: Math.round((r.collections / ops) * 1e5) / 100 };
}

/**
 * The same in steady state: one venue runs the stream (sizes times `sizeScale`) and only its last
 * `measured` ops are measured, after the venue's storage has grown to what the stream needs and
 * the code has settled (docs/book.md "Allocation per op"). With `sizeScale` 40, fills carry
 * premiums and notionals beyond the small integers (32-bit signed here), the figures V8 boxes when they
 * cross a call.
 */
export function seriesActorSteadyAllocation(s: OpStream, measured: number, sizeScale = 1): { bytesPerOp: number; collectionsPer1000: number } {
  const scaled: OpStream = sizeScale === 1 ? s : { ...s, qty: s.qty.map((q) => q * sizeScale) };
  const p = prepare(scaled);
  const { venue, commands } = p;
  const from = commands.length - measured;
  if (from <= p.prefill) throw new RangeError(`the stream has ${commands.length - p.prefill} timed ops, not more than the ${measured} to measure`);
  for (let i = 0; i < from; i++) venue.apply(commands[i]!);
  const r = measureAllocation(() => {
    for (let i = from; i < commands.length; i++) venue.apply(commands[i]!);
  });
  return { bytesPerOp: Math.round((r.bytes / measured) * 10) / 10, collectionsPer1000: Math.round((r.collections / measured) * 1e5) / 100 };
}
