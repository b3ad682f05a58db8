/**
 * Order entry: place, cancel and replace, single or batched. Every entry is validated and
 * the whole command's risk is checked before anything is applied, so a batch or a replace
 * is all-or-nothing (api.md "Orders").
 */
import type { Hex } from '../domain/hex.ts';
import type { CancelOrder, PlaceOrder, SignedOrderFields } from '../commands.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { Pair } from '../actors/registry.ts';
import type { OrderRecord } from '../actors/orderRecord.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import { balanceOf, collateralOf } from '../actors/position.ts';
import { wadOfLots } from '../domain/lots.ts';
import type { ProspectiveOrder } from '../risk/marginBook.ts';
import type { EventSink } from './eventSink.ts';
import type { EngineEvent } from '../events.ts';
import { blankOrderEvent, writeOrderEvent, type Writable } from './eventPool.ts';
import { tickPxAt, tickToPrice } from '../domain/ticks.ts';
import { REG, R_PREMIUM, R_PX, R_WORST_FEE } from '../domain/registers.ts';
import { premiumAt, premiumInBigint, premiumPerLotTick } from '../domain/premium.ts';
import { applyFill, worstFeeOf, type FillParams, type FillSide } from './fill.ts';
import { fillMoneyOf, notionalAt, worstFeeAt, type FillMoney } from '../domain/fees.ts';
import { checkOrders, withPortfolios } from './orderRules.ts';
import type { ValidPlace } from './orderDrafts.ts';
import { DEFAULT_INSTRUCTIONS, type CancelReason } from '../domain/instructions.ts';
import { MmpGuard } from './mmp.ts';
import type { MmpEntry } from '../actors/mmp.ts';
import type { MatchOutcome } from '../actors/series.ts';
import type { EngineOrderOutcome } from './orderResults.ts';

export type { EngineOrderOutcome, OrderOutcome, OrderTrade } from './orderResults.ts';

export { validatePlace, validateCancel } from './orderRules.ts';
export type { CheckedPlace, ValidPlace, ValidCancel } from './orderDrafts.ts';

/** Open interest a pair would reach if every new order opened its full size (a safe upper bound). */
function checkOpenInterest(state: VenueState, places: readonly ValidPlace[], count: number): Rejection | null {
  let adds: Map<string, bigint> | null = null; // only when some pair is capped (0 = unlimited)
  for (let i = 0; i < count; i++) {
    const v = places[i]!;
    const isCall = state.series.at(v.seriesHandle).spec.isCall;
    const capped = isCall ? v.pair.maxCallOI : v.pair.maxPutOI;
    if (capped === 0n) continue;
    adds ??= new Map();
    const held = v.portfolio.positions.get(v.o.seriesId);
    const balance = held === undefined ? 0n : balanceOf(held);
    const closable = v.o.isBuy ? (balance < 0n ? -balance : 0n) : balance > 0n ? balance : 0n;
    const opening = v.o.size > closable ? v.o.size - closable : 0n;
    const key = `${v.pair.pairId}|${isCall}`;
    adds.set(key, (adds.get(key) ?? 0n) + opening);
  }
  if (adds === null) return null;
  for (const [key, add] of adds) {
    if (add === 0n) continue;
    const [pairId, isCall] = key.split('|') as [Hex, string];
    const pair = state.pairs.get(pairId)!;
    const cap = isCall === 'true' ? pair.maxCallOI : pair.maxPutOI;
    const current = wadOfLots(state.pairOpenInterest(pairId, isCall === 'true'), pair.sizeStep);
    if (current + add > cap) return reject('oi_cap', { pairId, cap: cap.toString(), openInterest: current.toString() });
  }
  return null;
}


/**
 * Margin and cash for every margin account the command touches, counting every order's worst
 * case (the first `count` of `places`; the first `cancelledCount` of `cancelled`, the command's cancels, taken away). Allocates
 * nothing: the orders of one account at a time are written into scratch entries (CHECK), in
 * the order of the places, accounts in the order of their first place.
 */
function checkRisk(state: VenueState, places: readonly ValidPlace[], count: number, cancelled: readonly number[], cancelledCount: number): Rejection | null {
  if (count === 1) {
    // The usual command, one order.
    prospective(state, places[0]!, scratchEntry(0));
    return checkAccount(state, places[0]!.portfolio, 1, cancelled, cancelledCount);
  }
  const margin = state.accounts.margin;
  for (let i = 0; i < count; i++) {
    const account = margin.account(places[i]!.portfolio);
    let earlier = false;
    for (let j = 0; j < i && !earlier; j++) earlier = margin.account(places[j]!.portfolio) === account;
    if (earlier) continue; // checked with the first place of its account
    let n = 0;
    for (let j = i; j < count; j++) if (margin.account(places[j]!.portfolio) === account) prospective(state, places[j]!, scratchEntry(n++));
    const refused = checkAccount(state, places[i]!.portfolio, n, cancelled, cancelledCount);
    if (refused) return refused;
  }
  return null;
}

/** The prospective orders of one account's check, rewritten by every check (checkRisk never re-enters); grown to the largest batch. */
const CHECK: Writable<ProspectiveOrder>[] = [];

function scratchEntry(i: number): Writable<ProspectiveOrder> {
  while (CHECK.length <= i) CHECK.push({ seriesId: '0x', isBuy: false, size: 0n, price: 0n, worstFee: 0n, premium: 0n, premiumN: 0.5, worstFeeN: 0.5, lots: 0.5, lot: 1n, px: 0.5 });
  return CHECK[i]!;
}

/** The new order as a check counts it, written into `into`. */
function prospective(state: VenueState, v: ValidPlace, into: Writable<ProspectiveOrder>): void {
  const { sizeStep, tickDecimals } = v.pair;
  const spot = state.oracles.get(v.pair.pairId)!.spot;
  // Premium, notional and the worst fee in doubles while exact (domain/premium.ts, domain/fees.ts), else in bigint.
  // (Through the registers of domain/registers.ts: no double crosses a call.)
  premiumAt(v.lots, v.o.tick, premiumPerLotTick(sizeStep, tickDecimals));
  notionalAt(v.lots, spot, sizeStep);
  worstFeeAt(state.config);
  tickPxAt(v.o.tick, tickDecimals);
  const premiumN = REG[R_PREMIUM]!;
  const worstN = REG[R_WORST_FEE]!;
  into.seriesId = v.o.seriesId;
  into.isBuy = v.o.isBuy;
  into.size = v.o.size;
  into.price = v.price;
  into.lots = v.lots;
  into.lot = sizeStep;
  into.px = REG[R_PX]!;
  // The doubles for a check decided in doubles (MarginBook.fitsInDoubles); the bigints now only
  // when a double is not exact, else made by inBigint if the check needs them.
  into.premiumN = premiumN;
  into.worstFeeN = worstN;
  if (premiumN < 0 || worstN < 0) {
    into.premium = premiumN >= 0 ? BigInt(premiumN) : premiumInBigint(v.lots, v.o.tick, sizeStep, tickDecimals);
    into.worstFee = worstN >= 0 ? BigInt(worstN) : worstFeeOf(state, collateralOf(spot, v.o.size), into.premium);
  }
}

/** The first `count` scratch entries with their bigints (those prospective left to their doubles). */
function inBigint(count: number): void {
  for (let i = 0; i < count; i++) {
    const e = CHECK[i]!;
    if (e.premiumN! >= 0 && e.worstFeeN! >= 0) {
      e.premium = BigInt(e.premiumN!);
      e.worstFee = BigInt(e.worstFeeN!);
    }
  }
}

/** The account of `portfolio` with the first `count` scratch entries (CHECK) added and the cancels taken away. */
function checkAccount(state: VenueState, portfolio: Portfolio, count: number, cancelled: readonly number[], cancelledCount: number): Rejection | null {
  const margin = state.accounts.margin;
  let buys = false;
  for (let i = 0; i < count; i++) buys ||= CHECK[i]!.isBuy;
  // The usual check passes in doubles, no bigint made; a refusal, or figures beyond the doubles' bound, in bigint.
  if (margin.fitsInDoubles(portfolio, buys, CHECK, cancelled, count, cancelledCount)) return null;
  inBigint(count);
  // The check's figures are a scratch object that the second check below rewrites: read them first.
  const after = margin.requirement(portfolio, CHECK, cancelled, count, cancelledCount);
  const { deposit, cashNeeded, equity, initialMarginWithOrders } = after;
  if (buys && deposit < cashNeeded) {
    return reject('insufficient_cash', { deposit: deposit.toString(), required: cashNeeded.toString() });
  }
  if (equity < initialMarginWithOrders) {
    // An account already under water may still reduce its requirement.
    const before = margin.requirement(portfolio, CHECK, cancelled, 0, cancelledCount);
    if (initialMarginWithOrders > before.initialMarginWithOrders) {
      return reject('insufficient_margin', { equity: equity.toString(), required: initialMarginWithOrders.toString() });
    }
  }
  return null;
}

/**
 * The series' record of a validated order, before it matches: a fresh book ref, status open. A
 * record of the venue's pool (actors/recordPool.ts), re-initialised in place: no allocation. It
 * is the series' until its order leaves the book and is recycled after the command, so nothing
 * may keep it past the command.
 */
export function newRecord(state: VenueState, v: ValidPlace): OrderRecord {
  const { o } = v;
  const r = state.series.records.take().init(
    o.orderId,
    o.seriesId,
    state.nextRef++,
    o.owner,
    state.internWalletOwner(v.wallet, o.owner), // by the wallet handle the rules found: no second lookup of the owner
    o.portfolioId,
    v.portfolio.id,
    o.isBuy,
    o.tick,
    v.lots,
    o.nonce,
    Math.min(o.expiry, state.series.at(v.seriesHandle).spec.expiry),
    o.instructions ?? DEFAULT_INSTRUCTIONS,
    signedOf(o),
  );
  r.createdAt = state.now; // stored here, not passed (recordPool.ts `init`)
  return r;
}

/** Apply one validated place; its outcome is added to the command's results (sink.results). */
function executePlace(state: VenueState, sink: EventSink, v: ValidPlace): void {
  const { o, pair } = v;
  // The series by its handle: an array read, no lookup by id.
  const series = state.series.at(v.seriesHandle);
  state.accounts.nonces[v.wallet]!.use(o.nonce);
  const tif = o.instructions?.timeInForce ?? 'GTC';
  // Market maker protection: an mmp order of a wallet that an earlier entry of this command
  // froze on the pair is cancelled at once (the rules passed before the trip). Only the nonce is used.
  if (o.instructions?.mmp === true && state.mmp.isFrozen(o.owner, pair.pairId, state.now)) {
    killEarly(state, sink, v, 'mmp', 'mmp_frozen');
    return;
  }
  // A guard when some wallet has an MMP config on the pair (flows/mmp.ts): fills count, trips stop quotes.
  const guard = MmpGuard.of(state, series, pair.sizeStep);
  // Fill-or-kill: killed before it touches the book when other owners' liquidity at its
  // price cannot fill it all (its own resting orders would be removed by self-trade
  // prevention, not filled; under market maker protection, quotes a trip would stop do not
  // count). Only the nonce is used.
  if (tif === 'FOK') {
    const fillable =
      guard === null
        ? series.fillableLots(state.ownerIndexOf(o.owner), o.isBuy, o.tick, v.lots)
        : series.fillableLotsGuarded(probeRecord(state, v), v.lots, new MmpGuard(state, series, pair.sizeStep, true));
    if (fillable < v.lots) {
      killEarly(state, sink, v, 'fok', 'fok_not_filled');
      return;
    }
  }
  const record = newRecord(state, v);
  const outcome = series.match(record, tif === 'GTC', guard);
  const tradeCount = settleMatch(state, sink, outcome, pair, record, v.portfolio, guard, false);
  const stopped = outcome.stopped;
  if (outcome.restingLots > 0) {
    const slot = state.accounts.restOrder(record, v.portfolio, pair, outcome.restingLots, v.price);
    state.orderIndex.set(o.orderId, slot);
    if (record.expiry < series.spec.expiry) state.trackGoodTill(slot);
  }
  sink.portfolio(v.portfolio);
  sink.book(series);
  const killed: CancelReason | null = record.status !== 'cancelled' ? null : stopped ? 'mmp' : tif === 'IOC' ? 'ioc' : 'fok';
  pushOrderEvent(sink, record, record.filledLots, outcome.restingLots > 0 ? record.lots - record.filledLots : 0, killed === null ? null : KILLED_REASON[killed], killed);
  guard?.events(sink);
  sink.results.add(o.orderId, o.seriesId, record.status, record.filledLots, outcome.restingLots > 0 ? record.lots - record.filledLots : 0, tradeCount, record.instructions, killed);
}

/** The reason of a taker cancelled by its instructions or by market maker protection (a constant: no string built per order). */
const KILLED_REASON: Readonly<Record<'mmp' | 'ioc' | 'fok', string>> = { mmp: 'mmp_tripped', ioc: 'ioc_remainder', fok: 'fok_remainder' };

// One book fill's parameters, sides and money, rewritten for every fill of every match (applyFill
// reads them during its call only and keeps none): no object per fill. Its WAD `size` stays 0n: a
// book fill has its tick and lots (on the grid) and its money, so applyFill never reads it.
const BOOK_MAKER: Writable<FillSide> = { portfolio: null as unknown as Portfolio, orderId: null };
const BOOK_TAKER: Writable<FillSide> = { portfolio: null as unknown as Portfolio, orderId: null };
const BOOK_MONEY: FillMoney = { premium: 0n, notional: 0n, takerFee: 0n, makerFee: 0n, premiumN: -1, notionalN: -1, takerFeeN: -1, makerFeeN: -1 };
const BOOK_FILL: Writable<FillParams> = { seriesId: '0x', seriesHandle: -1, price: 0n, size: 0n, tick: -1, lots: 0, sizeStep: 1n, maker: BOOK_MAKER, taker: BOOK_TAKER, takerIsBuy: false, source: 'book', feeFree: false, money: BOOK_MONEY };

/**
 * Settle what a match did (flows shared by order entry and the liquidation pass): each fill
 * between the resting maker and `taker` (fee-free for the venue's liquidation orders), the
 * resting orders self-trade prevention or market maker protection removed, and the mmp orders
 * of wallets the match froze. The taker's trades are appended to the command's trade tape
 * (`sink.results.trades`: trade id, tick, lots); returns how many.
 */
export function settleMatch(state: VenueState, sink: EventSink, outcome: MatchOutcome, pair: Pair, taker: OrderRecord, takerPortfolio: Portfolio, guard: MmpGuard | null, feeFree: boolean): number {
  const n = outcome.fillCount;
  const accounts = state.accounts;
  if (n > 0) {
    const trades = sink.results.trades;
    const spot = state.oracles.get(pair.pairId)!.spot;
    const f = BOOK_FILL;
    f.seriesId = taker.seriesId;
    f.seriesHandle = outcome.seriesHandle;
    f.takerIsBuy = taker.isBuy;
    f.feeFree = feeFree;
    f.sizeStep = pair.sizeStep;
    BOOK_TAKER.portfolio = takerPortfolio;
    BOOK_TAKER.orderId = taker.orderId;
    for (let i = 0; i < n; i++) {
      const maker = outcome.fillMaker[i]!;
      const lots = outcome.fillLots[i]!;
      const resting = state.orderIndex.get(maker.orderId)!;
      const makerPortfolio = accounts.holderOf(resting);
      const price = accounts.orders.price[resting]!; // read before the slot may be freed below
      const tick = outcome.fillTick[i]!; // fills are at the maker's price
      if (maker.status === 'filled') {
        accounts.closeOrder(resting);
        state.orderIndex.delete(maker.orderId);
      } else {
        accounts.fillOrder(resting, lots);
      }
      // A book fill's trade event and money come from tick and lots (fillMoneyOf below): its WAD size is not read.
      f.price = price;
      f.tick = tick;
      f.lots = lots;
      BOOK_MAKER.portfolio = makerPortfolio;
      BOOK_MAKER.orderId = maker.orderId;
      // Premium, notional and fees from lots and the maker's tick, in doubles while exact (domain/fees.ts).
      fillMoneyOf(BOOK_MONEY, lots, tick, pair.sizeStep, pair.tickDecimals, spot, state.config, feeFree);
      trades.push(applyFill(state, sink, f), tick, lots);
      orderEvent(sink, maker, null, null);
    }
  }
  for (let i = 0; i < outcome.selfTradeCount; i++) {
    const m = outcome.selfTradeCancels[i]!;
    accounts.closeOrder(state.orderIndex.get(m.orderId)!);
    state.orderIndex.delete(m.orderId);
    orderEvent(sink, m, 'self_trade_prevention', 'self_trade');
  }
  for (let i = 0; i < outcome.mmpCount; i++) {
    const m = outcome.mmpCancels[i]!;
    // Quotes of a wallet this match froze, removed instead of filled.
    const resting = state.orderIndex.get(m.orderId)!;
    const holder = accounts.holderOf(resting);
    accounts.closeOrder(resting);
    state.orderIndex.delete(m.orderId);
    sink.portfolio(holder);
    orderEvent(sink, m, 'mmp_tripped', 'mmp');
  }
  if (guard !== null) for (const e of guard.tripped) cancelMmpOrders(state, sink, e);
  return n;
}

/**
 * Every open mmp order of a wallet that market maker protection froze on a pair, cancelled
 * (`cancelReason: mmp`), oldest first per portfolio.
 */
function cancelMmpOrders(state: VenueState, sink: EventSink, e: MmpEntry): void {
  const doomed: number[] = [];
  const slots = state.accounts.orders;
  for (const portfolio of state.accounts.walletPortfolios(state.accounts.walletOf(e.owner))) {
    for (let r = portfolio.openOrders.head; r !== -1; r = slots.pNext[r]!) {
      if (slots.instructions[r]!.mmp && slots.pairId[r] === e.pairId) doomed.push(r);
    }
  }
  for (const open of doomed) removeOrder(state, sink, open, 'cancelled', 'mmp_tripped', 'mmp');
}

/**
 * The taker as the fill-or-kill check under market maker protection sees it: no book ref used.
 * The pool's one probe record, rewritten by every probe: valid only for the check it is made for.
 */
export function probeRecord(state: VenueState, v: ValidPlace): OrderRecord {
  const { o } = v;
  const r = state.series.records.probe.init(o.orderId, o.seriesId, 0, o.owner, state.ownerIndexOf(o.owner), o.portfolioId, v.portfolio.id, o.isBuy, o.tick, v.lots, o.nonce, o.expiry, o.instructions ?? DEFAULT_INSTRUCTIONS, signedOf(o));
  r.createdAt = state.now;
  return r;
}

/** The signed fields an order keeps: its place command's PlaceOrder itself (no copy), or null when it carries no signature (journals from before). */
function signedOf(o: PlaceOrder): SignedOrderFields | null {
  return o.signature === undefined ? null : o;
}

/**
 * An order cancelled whole before it touches the book (no book ref used): a fill-or-kill order
 * that could not fill at once (`fok`), an mmp order of a wallet frozen earlier in its command (`mmp`).
 */
function killEarly(state: VenueState, sink: EventSink, v: ValidPlace, cancelReason: 'fok' | 'mmp', reason: string): void {
  const { o } = v;
  const instructions = o.instructions ?? DEFAULT_INSTRUCTIONS;
  const expiry = Math.min(o.expiry, state.series.at(v.seriesHandle).spec.expiry);
  const e = sink.orderEvent();
  e.createdAt = state.now;
  sink.append(writeOrderEvent(e, o.orderId, o.owner, o.portfolioId, o.seriesId, o.isBuy, o.tick, v.lots, expiry, o.nonce, instructions, 'cancelled', 0, 0, reason, cancelReason, signedOf(o)));
  sink.results.add(o.orderId, o.seriesId, 'cancelled', 0, 0, 0, instructions, cancelReason);
}

/** Take an open order (its slot, `open`) off the book and release its reservation; the slot is freed. */
export function removeOrder(state: VenueState, sink: EventSink, open: number, status: 'cancelled' | 'expired', reason: string, cancelReason: CancelReason): void {
  const accounts = state.accounts;
  const portfolio = accounts.holderOf(open);
  const series = state.series.get(accounts.orders.seriesId[open]!)!;
  // A message to the series actor (by ref): it takes the order off its book and answers with its record as it ends.
  const record = series.removeRef(accounts.orders.ref[open]!, status);
  accounts.closeOrder(open);
  state.orderIndex.delete(record.orderId);
  sink.portfolio(portfolio);
  sink.book(series);
  orderEvent(sink, record, reason, cancelReason);
}

/** The order event of `r` as it stands (a maker after a fill, a removed order). */
export function orderEvent(sink: EventSink, r: OrderRecord, reason: string | null, cancelReason: CancelReason | null): void {
  const open = r.status === 'open' || r.status === 'partial';
  pushOrderEvent(sink, r, r.filledLots, open ? r.lots - r.filledLots : 0, reason, cancelReason);
}

/** An order event: the order's static fields from its record, and its state after the command (filled and remaining in lots); in the sink's reused storage. */
export function pushOrderEvent(sink: EventSink, r: OrderRecord, filledLots: number, remainingLots: number, reason: string | null, cancelReason: CancelReason | null): void {
  // Its time (Unix ms, beyond the small integers) stored here, not passed: a double passed to a call is boxed.
  const e = sink.orderEvent();
  e.createdAt = r.createdAt;
  sink.append(writeOrderEvent(e, r.orderId, r.owner, r.portfolioId, r.seriesId, r.isBuy, r.tick, r.lots, r.expiry, r.nonce ?? null, r.instructions, r.status, filledLots, remainingLots, reason, cancelReason, r.signed ?? null));
}

/** The order event of a record (its static fields) in a given state, compact (tick, lots), a fresh object (the image's); the image stamps it. */
export function orderEventOf(r: OrderRecord, filledLots: number, remainingLots: number, reason: string | null, cancelReason: CancelReason | null): EngineEvent {
  const e = blankOrderEvent();
  e.createdAt = r.createdAt;
  return writeOrderEvent(e, r.orderId, r.owner, r.portfolioId, r.seriesId, r.isBuy, r.tick, r.lots, r.expiry, r.nonce ?? null, r.instructions, r.status, filledLots, remainingLots, reason, cancelReason, r.signed ?? null);
}

/** The open orders a command's cancels take away, for its risk check (rewritten by every command; kept with a count). */
const CANCELLED: number[] = [];

export type OrdersValue = { readonly outcomes: readonly EngineOrderOutcome[] };

/** Place, cancel or replace: the order rules (orderRules.ts, the engine's pre-check), risk once, then apply in order. */
export function enterOrders(
  state: VenueState,
  sink: EventSink,
  cancels: readonly CancelOrder[],
  places: readonly PlaceOrder[],
  cancelReason: 'user' | 'replace' = 'user',
  /** A further rule over the validated places, run before open interest and risk (a strategy's fill check). */
  gate?: (places: readonly ValidPlace[]) => Rejection | null,
): OrdersValue | Rejection {
  const checked = checkOrders(state, cancels, places, state.nowSec);
  if ('code' in checked) return checked;
  // The checked entries are reused storage (orderRules.ts), valid for this command: nothing below keeps them.
  const validCancels = checked.cancels;
  const cancelCount = checked.cancelCount;
  const placeCount = checked.placeCount;
  // Every rule passed: a market maker's internal portfolio used for the first time is created now.
  const validPlaces = withPortfolios(state, checked);
  if (gate !== undefined) {
    const refused = gate(validPlaces.slice(0, placeCount));
    if (refused) return refused;
  }
  if (placeCount > 0) {
    const oi = checkOpenInterest(state, validPlaces, placeCount);
    if (oi) return oi;
    for (let i = 0; i < cancelCount; i++) CANCELLED[i] = validCancels[i]!.open;
    const risk = checkRisk(state, validPlaces, placeCount, CANCELLED, cancelCount);
    if (risk) return risk;
  }
  // Nothing refuses the command from here on: resting orders past their good-till leave before any match.
  if (placeCount > 0) expireDue(state, sink);
  for (let i = 0; i < cancelCount; i++) {
    const v = validCancels[i]!;
    state.accounts.nonces[v.wallet]!.use(v.c.nonce);
    removeOrder(state, sink, v.open, 'cancelled', 'cancelled_by_owner', cancelReason);
  }
  // The outcomes go to the venue's reused result storage (orderResults.ts): valid until its next command.
  sink.results.begin();
  for (let i = 0; i < placeCount; i++) executePlace(state, sink, validPlaces[i]!);
  return sink.results.value();
}

/**
 * Every open order whose good-till time has come leaves the book (`expired`). The clock does it
 * each tick, and order entry and the liquidation pass do it before they match, so that no order
 * ever fills at or after its good-till time, however late a clock command comes (the settlement
 * contract refuses such a fill: docs/chain.md).
 */
export function expireDue(state: VenueState, sink: EventSink): void {
  const heap = state.expiryHeap;
  while (heap.size > 0 && heap.peekKey()! <= state.nowSec) {
    const orderId = heap.pop()!;
    const open = state.orderIndex.get(orderId);
    // Entries stay until their time (an order that left the book leaves its entry behind). The
    // engine does not derive order ids, so one may have come back on a later order with its own
    // good-till time: only an order whose own expiry has passed leaves.
    if (open === undefined || state.accounts.orders.expiry[open]! > state.nowSec) continue;
    removeOrder(state, sink, open, 'expired', 'order_expiry', 'expiry');
  }
}
