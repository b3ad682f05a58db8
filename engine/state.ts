/**
 * The venue's whole state: the actors and the few indexes that route messages between them.
 * Only the engine's flows (engine/flows) change it, one command at a time.
 */
import type { Hex } from './domain/hex.ts';
import { addLots, wadOfLots, type Lots } from './domain/lots.ts';
import type { VenueConfig } from './config.ts';
import type { Pair, OracleState } from './actors/registry.ts';
import type { SeriesActor } from './actors/series.ts';
import { SeriesTable } from './actors/seriesTable.ts';
import { AccountActor } from './actors/accounts.ts';
import { QuoteBoard } from './risk/riskQuote.ts';
import { MinHeap } from './actors/minHeap.ts';
import { RfqActor } from './actors/rfq.ts';
import { MmpActor } from './actors/mmp.ts';
import { ReferralActor } from './actors/referrals.ts';
import { InsuranceFund } from './actors/insuranceFund.ts';
import { OrderIdIndex } from './actors/orderIdIndex.ts';

function addTo(sums: Map<Hex, { call: Lots; put: Lots }>, series: SeriesActor, delta: Lots): void {
  let oi = sums.get(series.spec.pairId);
  if (oi === undefined) sums.set(series.spec.pairId, (oi = { call: 0, put: 0 }));
  if (series.spec.isCall) oi.call = addLots(oi.call, delta);
  else oi.put = addLots(oi.put, delta);
}

/** Stale expiry entries tolerated beyond the open orders before a sweep (see trackGoodTill). */
export const EXPIRY_SLACK = 4096;

export class VenueState {
  /** Venue clock (Unix ms): the latest command timestamp; never moves backwards. */
  now = 0;
  seq = 0;
  readonly pairs = new Map<Hex, Pair>();
  readonly oracles = new Map<Hex, OracleState>();
  /** The series by id, each with a dense handle (actors/seriesTable.ts). */
  readonly series = new SeriesTable();
  /** Expiries already listed, per pair. */
  readonly listedExpiries = new Map<Hex, Set<number>>();
  readonly accounts: AccountActor;
  readonly rfq = new RfqActor();
  /** Market maker protection per (wallet, pair) (engine/actors/mmp.ts). */
  readonly mmp = new MmpActor();
  /** Referral codes and who referred whom (engine/actors/referrals.ts). */
  readonly referrals = new ReferralActor();
  /** Provider ids of the chain events applied (engine/flows/chain.ts), in order: each is taken once. */
  readonly chainEvents = new Set<string>();
  /** Forced-withdrawal requests taken in (the vault's request id) and what was paid of each (docs/chain.md "Leaving without the venue"). */
  readonly forcedWithdrawals = new Map<string, bigint>();
  /** Forced withdrawals executed on chain without the venue and taken in since genesis (reconciliation compares it with the vault's count). */
  forcedExecutions = 0;
  /** The last settlement batch the relayer confirmed final (docs/chain.md): batches are confirmed once each, in order. */
  settledBatch = 0;
  /** The insurance fund's bad debt and the liquidation ids (its cash is its portfolio's, engine/actors/insuranceFund.ts). */
  readonly insurance = new InsuranceFund();
  /** Wallet -> small integer for the book's self-trade prevention. */
  readonly ownerIndex = new Map<string, number>();
  /** By wallet handle: its owner's index in `ownerIndex`, -1 until asked (internWalletOwner). */
  private readonly walletOwnerIndex: number[] = [];
  /**
   * Open order id -> its slot (actors/openOrders.ts): its record and everything a cancel, fill or
   * expiry touches, one lookup. Map-like, in insertion order (snapshots list it so), and it
   * allocates nothing per insert or delete (actors/orderIdIndex.ts).
   */
  readonly orderIndex: OrderIdIndex;
  /**
   * Good-till times of open orders: [expiry seconds, orderId]. An order that leaves the book
   * early leaves its entry behind (skipped when it comes up); `trackGoodTill` drops such
   * entries once they outnumber the open orders, so a market maker's cancelled quotes with
   * distant good-till times do not pile up until those times, or in every snapshot.
   */
  readonly expiryHeap = new MinHeap<Hex>();
  /**
   * Open interest of the live series per pair, calls and puts (lots of the pair's size step, domain/lots.ts), kept with every fill and
   * settlement so that an OI-cap check is one lookup rather than a pass over every series.
   * Derived: `recountOpenInterest` rebuilds it (on restore).
   */
  private readonly pairOI = new Map<Hex, { call: Lots; put: Lots }>();
  /** Armed dead-man switches: wallet -> the venue time (ms) at which its open orders are cancelled. */
  readonly cancelAfter = new Map<string, number>();
  nextRef = 1;
  nextTradeId = 1;
  /** The account side's risk quotes (the flows send each change: MarginBook.marksChanged). */
  readonly marks = new QuoteBoard();
  /** config.maxOrderLots as a bigint, for the order check. */
  readonly maxOrderLots: bigint;

  /** `idHashSeed`: the order index's hash seed (VenueOptions, venue.ts); it changes no output. */
  constructor(readonly config: VenueConfig, idHashSeed = 0) {
    this.orderIndex = new OrderIdIndex(idHashSeed);
    // The order rule compares lots in doubles (lotsOfSize), exact only below 2^53 (and the book's quantities need it too).
    if (!Number.isSafeInteger(config.maxOrderLots) || config.maxOrderLots < 1) throw new RangeError(`maxOrderLots must be an integer in [1, 2^53 - 1], got ${config.maxOrderLots}`);
    this.accounts = new AccountActor(config, this.marks);
    this.maxOrderLots = BigInt(config.maxOrderLots);
  }

  get nowSec(): number {
    return Math.floor(this.now / 1000);
  }

  /** The interned index of `owner`, or -1 when it was never interned (read only). */
  ownerIndexOf(owner: string): number {
    return this.ownerIndex.get(owner) ?? -1;
  }

  /**
   * `internOwner` of a wallet's owner by the wallet's handle (the account actor's, accounts.ts:
   * one handle per owner, never reused). The index is kept per handle once known, so an order
   * command interns its owner with the one lookup its rules made (`walletOf`). Derived, not in
   * snapshots: the interned indices themselves (`ownerIndex`) are, unchanged.
   */
  internWalletOwner(wallet: number, owner: string): number {
    const row = this.walletOwnerIndex;
    const known = wallet < row.length ? row[wallet]! : -1;
    if (known >= 0) return known;
    const i = this.internOwner(owner);
    while (row.length <= wallet) row.push(-1);
    row[wallet] = i;
    return i;
  }

  internOwner(owner: string): number {
    let i = this.ownerIndex.get(owner);
    if (i === undefined) {
      i = this.ownerIndex.size;
      this.ownerIndex.set(owner, i);
    }
    return i;
  }

  /**
   * Schedule the good-till time of the order open in `slot` (its time and id read from the
   * slot). Amortised O(log n): a sweep runs only when the
   * heap holds more than twice the open orders plus EXPIRY_SLACK entries, keeps at most the
   * open ones, and so is at least that many pushes away from the next. Deterministic (sizes
   * of the state only), so a restored venue sweeps at the same commands as one that never
   * stopped.
   */
  trackGoodTill(slot: number): void {
    const heap = this.expiryHeap;
    const orders = this.accounts.orders;
    // Its time and id from the slot, not passed (a time beyond the small integers passed to a call is boxed: MinHeap.pushKeyOf).
    heap.pushKeyOf(orders.expiry, slot, orders.orderId[slot]!, slot);
    if (heap.size <= 2 * this.orderIndex.size + EXPIRY_SLACK) return;
    heap.retain(this.stillGoodTill);
  }

  /**
   * A heap entry whose order is still open with that good-till time (made once: a sweep
   * allocates no closure). The entry's slot (its hint, the slot the order rested in) answers
   * without hashing the id when that slot still holds the id open: then it is the slot the index
   * gives. Otherwise (the order left, a restored entry without one) the index decides, as before.
   */
  private readonly stillGoodTill = (key: number, id: Hex, slot: number): boolean => {
    const orders = this.accounts.orders;
    if (orders.isOpen(slot) && orders.orderId[slot] === id) return orders.expiry[slot] === key;
    const o = this.orderIndex.get(id);
    return o !== undefined && orders.expiry[o] === key;
  };

  /** Open interest of `pairId`'s live calls (or puts), lots of the pair's size step. */
  pairOpenInterest(pairId: Hex, isCall: boolean): Lots {
    const oi = this.pairOI.get(pairId);
    return oi === undefined ? 0 : isCall ? oi.call : oi.put;
  }

  /** A series' open interest in WAD (its lots x its pair's size step): what events and snapshots carry. */
  openInterestWad(series: SeriesActor): bigint {
    return wadOfLots(series.openInterest, this.pairs.get(series.spec.pairId)!.sizeStep);
  }

  /** A live series' open interest moved by `delta` (a fill), or left the pair's sum (settlement: minus all of it). */
  addOpenInterest(series: SeriesActor, delta: Lots): void {
    if (delta === 0) return;
    series.openInterest = addLots(series.openInterest, delta);
    addTo(this.pairOI, series, delta);
  }

  /** Recount the per-pair sums from the series (after a restore); returns the first pair that differed, for tests. */
  recountOpenInterest(): string | null {
    const fresh = new Map<Hex, { call: Lots; put: Lots }>();
    for (const s of this.series.values()) if (!s.settled) addTo(fresh, s, s.openInterest);
    let differs: string | null = null;
    for (const pairId of new Set([...fresh.keys(), ...this.pairOI.keys()])) {
      if (this.pairOpenInterest(pairId, true) !== (fresh.get(pairId)?.call ?? 0) || this.pairOpenInterest(pairId, false) !== (fresh.get(pairId)?.put ?? 0)) differs ??= pairId;
    }
    this.pairOI.clear();
    for (const [k, v] of fresh) this.pairOI.set(k, v);
    return differs;
  }

  /** Check the order index against the series and portfolios it points into; the first problem, or null. For tests and audits. */
  verifyOrderIndex(): string | null {
    let open = 0;
    for (const s of this.series.values()) open += s.openOrderCount;
    if (open !== this.orderIndex.size) return `${this.orderIndex.size} indexed orders, ${open} open in the series`;
    const table = this.orderIndex.verify();
    if (table !== null) return `order index: ${table}`;
    const slots = this.accounts.orders;
    if (slots.live !== this.orderIndex.size) return `${this.orderIndex.size} indexed orders, ${slots.live} order slots in use`;
    for (const [orderId, o] of this.orderIndex) {
      if (!slots.isOpen(o)) return `order ${orderId}: indexed under a free slot`;
      const seriesId = slots.seriesId[o]!;
      const series = this.series.get(seriesId);
      const r = series?.openOrder(slots.ref[o]!);
      if (series === undefined || r === undefined || r.orderId !== orderId) return `order ${orderId}: not open in its series under its ref`;
      if (r.seriesId !== seriesId || series.spec.pairId !== slots.pairId[o] || r.owner !== slots.owner[o] || r.portfolioId !== slots.portfolioId[o] || r.isBuy !== (slots.buy[o] === 1) || r.expiry !== slots.expiry[o] || r.instructions !== slots.instructions[o] || r.tick !== slots.tick[o] || r.lots - r.filledLots !== slots.lots[o]) return `order ${orderId}: the account side's copy differs from the series' record`;
      const holder = this.accounts.holderOf(o);
      if (holder !== this.accounts.portfolio(r.owner, r.routedPortfolioId)) return `order ${orderId}: indexed under the wrong portfolio`;
      if (slots.orderId[o] !== orderId || !slots.has(holder.openOrders, o)) return `order ${orderId}: reservation is not the portfolio's`;
    }
    return null;
  }

}
