/**
 * The liquidation pass and the insurance fund (extensions.md "Liquidation and the insurance
 * fund"). Deterministic engine work at the end of every command that changed a margin
 * account (an oracle update revalues every account exposed to the pair; a fill moves the
 * positions of both sides): each account the command touched is checked, in portfolio-id
 * order, and one whose equity is below its maintenance margin counting open orders is
 * liquidated:
 *
 * 1. every open order of it is cancelled (`cancelReason: liquidation`); if its positions alone
 *    then meet maintenance margin, that is all;
 * 2. otherwise its positions are closed, largest margin contribution first (the loss of each in
 *    the account's worst scenario, or its short floor), a quarter of a position at a time, by
 *    IOC orders of the venue against the book limited to the band around the mark
 *    (`liquidationBandBps`, never selling below intrinsic value); what the book does not take
 *    inside the band the insurance fund takes at the band's edge; it stops as soon as
 *    maintenance margin is met (the account is checked before every close);
 * 3. a fee of `liquidationFeeBps` of index price x size closed, capped at the equity left, goes
 *    to the fund;
 * 4. equity left negative is a deficit: the fund pays what its cash covers, the rest is recorded
 *    as bad debt (a `bad_debt` event: an operator alert). The portfolio ends at zero equity.
 *
 * Liquidation closes pay no trading fee on either side, so that money is conserved: the cash
 * and deferred premium of every portfolio plus the fund's change only by recorded bad debt.
 */
import type { Hex } from '../domain/hex.ts';
import { WAD, UINT128_MAX } from '../domain/fixed.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { Position } from '../actors/position.ts';
import type { SeriesActor } from '../actors/series.ts';
import type { Pair } from '../actors/registry.ts';
import { balanceOf, collateralOf, contractsOfPosition, premiumOf } from '../actors/position.ts';
import { INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO } from '../actors/insuranceFund.ts';
import type { RiskQuote } from '../risk/riskQuote.ts';
import { SCENARIOS } from '../risk/margin.ts';
import { instructionsOf } from '../domain/instructions.ts';
import { priceToTick, tickToPrice } from '../domain/ticks.ts';
import { MAX_TICK } from '../book/assertArgs.ts';
import type { LiquidationClose } from '../events.ts';
import { publicPortfolioId, type EventSink } from './eventSink.ts';
import { applyFill } from './fill.ts';
import { expireDue, pushOrderEvent, removeOrder, settleMatch } from './orders.ts';
import { MmpGuard } from './mmp.ts';
import { liquidationSpot, type SpotPosition } from '../risk/liquidationSpot.ts';
import { exactOf } from '../risk/exactCash.ts';
import { ceilRateAt, ceilRateInDoubles } from '../risk/portfolioFigures.ts';
import { REG, R_MAINTENANCE } from '../domain/registers.ts';

/** The venue's closing orders: immediate-or-cancel, reduce-only. */
const LIQUIDATION_ORDER = instructionsOf({ timeInForce: 'IOC', reduceOnly: true });
/** A position is closed in steps of at most this fraction of its size when the pass first picks it. */
const STEPS_PER_POSITION = 4n;

/** The fund's portfolio, created (with the fund wallet's portfolio 0) on first use. */
export function fundPortfolio(state: VenueState, sink: EventSink): Portfolio {
  const existing = state.accounts.portfolio(INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO);
  if (existing !== undefined) return existing;
  while (state.accounts.portfolio(INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO) === undefined) state.accounts.createPortfolio(INSURANCE_FUND_OWNER, state.now);
  sink.portfolio(state.accounts.portfolio(INSURANCE_FUND_OWNER, 0)!);
  const fund = state.accounts.portfolio(INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO)!;
  sink.portfolio(fund);
  return fund;
}

/** Add cash to the fund: its seed, or an admin's deposit. */
export function depositToFund(state: VenueState, sink: EventSink, amount: bigint, reason: 'seed' | 'deposit'): Rejection | null {
  if (amount <= 0n) return reject('bad_amount', { field: 'amount' });
  const held = state.accounts.portfolio(INSURANCE_FUND_OWNER, INSURANCE_FUND_PORTFOLIO);
  const current = held === undefined ? 0n : state.accounts.depositOf(held);
  if (amount > UINT128_MAX - current) return reject('deposit_limit', { portfolioId: INSURANCE_FUND_PORTFOLIO, maxDeposit: (UINT128_MAX - current).toString() });
  const fund = fundPortfolio(state, sink);
  state.accounts.addDeposit(fund, amount);
  sink.portfolio(fund);
  sink.push({ type: 'insurance_fund', reason, amount, balance: state.accounts.depositOf(fund), badDebt: state.insurance.badDebt });
  return null;
}

/** Maintenance margin of a requirement (maintenance rate x initial margin, rounded up). */
function maintenanceOf(state: VenueState, initialMargin: bigint): bigint {
  return (initialMargin * state.config.maintenanceRate + WAD - 1n) / WAD;
}

// The pass's scratch (it never re-enters): the anchors seen so far and one round of them. A
// command touches a few portfolios, so `seen` is a scan of a list until it is long (an oracle
// update's pass over many accounts), then a set: nothing allocated for the usual command. The
// lists are kept with counts, not emptied (`length = 0` frees their storage, and the next
// push allocates it again).
const SEEN_LINEAR = 32;
const seenList: Portfolio[] = [];
let seenCount = 0;
const round: Portfolio[] = [];
let roundCount = 0;

function byIdThenOwner(a: Portfolio, b: Portfolio): number {
  return a.id - b.id || (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0);
}

/** Sort the round by portfolio id, then owner: in place (an insertion sort, which allocates nothing) while it is short. */
function sortRound(): void {
  if (roundCount > SEEN_LINEAR) {
    const sorted = round.slice(0, roundCount).sort(byIdThenOwner);
    for (let i = 0; i < roundCount; i++) round[i] = sorted[i]!;
    return;
  }
  for (let i = 1; i < roundCount; i++) {
    const p = round[i]!;
    let j = i - 1;
    for (; j >= 0 && byIdThenOwner(round[j]!, p) > 0; j--) round[j + 1] = round[j]!;
    round[j + 1] = p;
  }
}

/** The liquidation pass: every margin account the command touched, in portfolio-id order, until no new one is touched. */
export function liquidationPass(state: VenueState, sink: EventSink): void {
  let seenSet: Set<Portfolio> | null = null;
  seenCount = 0;
  let from = 0;
  for (;;) {
    const touched = sink.touchedCount();
    if (from >= touched) break;
    roundCount = 0;
    for (let i = from; i < touched; i++) {
      const anchor = state.accounts.marginAnchor(sink.touchedAt(i));
      if (anchor.owner === INSURANCE_FUND_OWNER) continue;
      if (seenSet !== null) {
        if (seenSet.has(anchor)) continue;
        seenSet.add(anchor);
      } else {
        if (seenIncludes(anchor)) continue;
        seenList[seenCount++] = anchor;
        if (seenCount > SEEN_LINEAR) seenSet = new Set(seenList.slice(0, seenCount));
      }
      round[roundCount++] = anchor;
    }
    from = touched;
    sortRound();
    // liquidateIfDue never re-enters the pass (what it touches waits for the next round).
    for (let k = 0; k < roundCount; k++) liquidateIfDue(state, sink, round[k]!);
  }
  // A long round (an oracle update's) is not kept. What the short lists still name past the
  // counts are portfolios, which the accounts hold anyway.
  if (round.length > 1024) round.length = 0;
}

function seenIncludes(anchor: Portfolio): boolean {
  for (let i = 0; i < seenCount; i++) if (seenList[i] === anchor) return true;
  return false;
}

/** Whether a margin account is due: equity below the maintenance margin of its positions and open orders. */
function trigger(state: VenueState, anchor: Portfolio): { equity: bigint; maintenanceMargin: bigint } | null {
  // The requirement itself (the risk view's maintenance margin, health and withdrawable are not
  // needed here); the maintenance margin in doubles while exact (risk/portfolioFigures.ts), else in bigint.
  const n = state.accounts.margin.plainInDoubles(anchor);
  if (n !== null) {
    REG[R_MAINTENANCE] = n.initialMarginWithOrders;
    ceilRateAt(R_MAINTENANCE, state.config.maintenanceRate, R_MAINTENANCE);
    const mm = REG[R_MAINTENANCE]!;
    if (mm >= 0) return n.equity < mm ? { equity: BigInt(n.equity), maintenanceMargin: BigInt(mm) } : null;
  }
  const r = state.accounts.margin.requirement(anchor);
  const equity = exactOf(r.equity);
  const withOrders = exactOf(r.initialMarginWithOrders);
  const mmN = withOrders >= 0 && equity === equity ? ceilRateInDoubles(withOrders, state.config.maintenanceRate) : -1;
  if (mmN >= 0) return equity < mmN ? { equity: r.equity, maintenanceMargin: BigInt(mmN) } : null;
  const mm = maintenanceOf(state, r.initialMarginWithOrders);
  return r.equity < mm ? { equity: r.equity, maintenanceMargin: mm } : null;
}

function liquidateIfDue(state: VenueState, sink: EventSink, anchor: Portfolio): void {
  const due = trigger(state, anchor);
  if (due === null) return;
  const accounts = state.accounts;
  const id = String(state.insurance.nextLiquidationId++);
  const group = accounts.marginGroup(anchor);

  // 1. Every open order of the account.
  const doomed: number[] = [];
  const slots = accounts.orders;
  for (const m of group) for (let o = m.openOrders.head; o !== -1; o = slots.pNext[o]!) doomed.push(o);
  // Their ids before they go: a removed order's slot is freed.
  const cancelledOrders = doomed.map((o) => slots.orderId[o]!);
  for (const o of doomed) removeOrder(state, sink, o, 'cancelled', 'cancelled_by_liquidation', 'liquidation');

  // 2. Close, largest margin contribution first, until maintenance margin is met. Resting
  // orders past their good-till leave the book first: the closing orders never meet them.
  expireDue(state, sink);
  const closes: LiquidationClose[] = [];
  let notional = 0n;
  const steps = new Map<Hex, bigint>();
  let orders = 0;
  while (!accounts.risk(anchor).isHealthy) {
    const pick = largestContribution(state, group);
    if (pick === null) break; // nothing left to close: what is left is a deficit
    const { member, position, series, pair } = pick;
    const balance = balanceOf(position);
    const abs = balance < 0n ? -balance : balance;
    let step = steps.get(position.seriesId);
    if (step === undefined) {
      const quarter = (abs + STEPS_PER_POSITION - 1n) / STEPS_PER_POSITION;
      step = ((quarter + pair.sizeStep - 1n) / pair.sizeStep) * pair.sizeStep;
      // No closing order larger than the venue takes (maxOrderLots, a safe integer): its lots are then exact in a double (closeStep).
      const most = state.maxOrderLots * pair.sizeStep;
      if (step > most) step = most;
      steps.set(position.seriesId, step);
    }
    const size = abs < step ? abs : step;
    notional += closeStep(state, sink, id, ++orders, member, position.seriesId, series, pair, balance < 0n, size, closes);
  }

  // 3. The fee, capped at the equity left.
  const fund = fundPortfolio(state, sink);
  const left = accounts.risk(anchor).equity;
  const full = (notional * BigInt(state.config.liquidationFeeBps)) / 10_000n;
  const fee = left <= 0n ? 0n : full < left ? full : left;
  if (fee > 0n) {
    accounts.debit(anchor, fee);
    state.accounts.addDeposit(fund, fee);
  }

  // 4. A deficit: the fund pays what its cash covers, the rest is bad debt.
  const equity = accounts.risk(anchor).equity;
  let deficit = 0n;
  let fundPaid = 0n;
  let badDebt = 0n;
  if (equity < 0n) {
    deficit = -equity;
    const fundCash = state.accounts.depositOf(fund);
    const cash = fundCash > 0n ? fundCash : 0n;
    fundPaid = deficit < cash ? deficit : cash;
    badDebt = deficit - fundPaid;
    state.accounts.addDeposit(fund, fundPaid, -1);
    accounts.credit(anchor, deficit);
    state.insurance.badDebt += badDebt;
  }
  sink.portfolio(anchor);
  sink.portfolio(fund);
  const portfolioId = publicPortfolioId(anchor);
  sink.push({ type: 'liquidation', liquidationId: id, owner: anchor.owner, portfolioId, startedAt: state.nowSec, endedAt: state.nowSec, trigger: due, cancelledOrders, closes, fee, deficit, fundPaid, badDebt });
  if (fee !== 0n || deficit !== 0n) sink.push({ type: 'insurance_fund', reason: 'liquidation', amount: fee - fundPaid, balance: state.accounts.depositOf(fund), badDebt: state.insurance.badDebt });
  if (badDebt !== 0n) sink.push({ type: 'bad_debt', liquidationId: id, owner: anchor.owner, portfolioId, amount: badDebt, totalBadDebt: state.insurance.badDebt });
}

type Pick = { member: Portfolio; position: Position; series: SeriesActor; pair: Pair; contribution: number };

/**
 * The position of the account with the largest margin contribution: its loss in the account's
 * worst scenario now, or its short floor when larger (recomputed before every close, so a
 * worst scenario that flips side as positions close is followed). Ties: the lower series id.
 */
function largestContribution(state: VenueState, group: readonly Portfolio[]): Pick | null {
  const held: { member: Portfolio; position: Position; quote: RiskQuote }[] = [];
  const totals = new Float64Array(SCENARIOS);
  for (const member of group) {
    for (const position of member.positions.values()) {
      if (position.lots === 0) continue;
      const quote = state.marks.quote(position.seriesId);
      if (quote === null) continue; // settled: nothing to close
      // Expired, not yet settled (the clock settles it): it no longer trades, on the book or with the fund.
      if (state.series.get(position.seriesId)!.spec.expiry <= state.nowSec) continue;
      held.push({ member, position, quote });
      const b = contractsOfPosition(position);
      for (let s = 0; s < SCENARIOS; s++) totals[s]! += b * (quote.scenarios[s]! - quote.mark);
    }
  }
  if (held.length === 0) return null;
  let worst = 0;
  for (let s = 1; s < SCENARIOS; s++) if (totals[s]! < totals[worst]!) worst = s;
  const floorRate = Number(state.config.shortFloorRate) / 1e18;
  let best: Pick | null = null;
  for (const { member, position, quote } of held) {
    const b = contractsOfPosition(position);
    const loss = -b * (quote.scenarios[worst]! - quote.mark);
    const floor = b < 0 ? floorRate * quote.spot * -b : 0;
    const contribution = Math.max(loss, floor);
    if (best === null || contribution > best.contribution || (contribution === best.contribution && position.seriesId < best.position.seriesId)) {
      const series = state.series.get(position.seriesId)!;
      best = { member, position, series, pair: state.pairs.get(series.spec.pairId)!, contribution };
    }
  }
  return best;
}

/**
 * The band's edge for a closing order (WAD price on the pair's grid, and its tick): a sale
 * no lower than the mark less the band nor below intrinsic value (up to the mark), a
 * purchase no higher than the mark plus the band.
 */
export function bandEdge(state: VenueState, series: SeriesActor, pair: Pair, isBuy: boolean): { tick: number; price: bigint } {
  const q = state.marks.quote(series.spec.seriesId)!;
  const mark = q.markWad;
  const band = (mark * BigInt(state.config.liquidationBandBps)) / 10_000n;
  let tick: bigint;
  if (isBuy) tick = priceToTick(mark + band, pair.tickDecimals, false);
  else {
    const spot = q.spotWad;
    const strike = series.spec.strike;
    const intrinsic = series.spec.isCall ? (spot > strike ? spot - strike : 0n) : strike > spot ? strike - spot : 0n;
    const lower = mark - band;
    const held = intrinsic < mark ? intrinsic : mark; // intrinsic value, up to the mark
    const floor = held > lower ? held : lower;
    tick = priceToTick(floor, pair.tickDecimals, true);
  }
  if (tick < 0n) tick = 0n;
  return { tick: Number(tick), price: tickToPrice(tick, pair.tickDecimals) };
}

/** The id of the venue's `n`th closing order of liquidation `id`. */
function closingOrderId(id: string, n: number): Hex {
  return `0x11${BigInt(id).toString(16).padStart(54, '0')}${n.toString(16).padStart(8, '0')}` as Hex;
}

/**
 * One close: an IOC order of the venue for the member's position against the book inside the
 * band; the fund takes what is left at the band's edge. The order is filled whole either way.
 * Returns the notional closed (index price x size, C6).
 */
function closeStep(state: VenueState, sink: EventSink, id: string, n: number, member: Portfolio, seriesId: Hex, series: SeriesActor, pair: Pair, isBuy: boolean, size: bigint, closes: LiquidationClose[]): bigint {
  const lots = Number(size / pair.sizeStep);
  const edge = bandEdge(state, series, pair, isBuy);
  // An edge past the book's tick range (a pair with many tick decimals and a high mark): a
  // purchase may take every ask (all lie below it), so it meets the book at the range's top; a
  // sale could meet no bid, so the book is skipped. The fund's price stays the edge's.
  const inRange = edge.tick <= MAX_TICK;
  // A record of the venue's pool (actors/recordPool.ts): the IOC order never rests, so it is recycled after the command.
  const record = state.series.records.take().init(closingOrderId(id, n), seriesId, state.nextRef++, member.owner, state.internOwner(member.owner), publicPortfolioId(member), member.id, isBuy, inRange ? edge.tick : MAX_TICK, lots, undefined, series.spec.expiry, LIQUIDATION_ORDER, null);
  record.createdAt = state.now;
  const side = isBuy ? 'buy' : 'sell';
  const guard = MmpGuard.of(state, series, pair.sizeStep);
  if (inRange || isBuy) {
    const outcome = series.match(record, false, guard);
    // Its trades, read off the command's trade tape (tick and lots) at once.
    const n = settleMatch(state, sink, outcome, pair, record, member, guard, true);
    const tape = sink.results.trades;
    for (let k = tape.count - n; k < tape.count; k++) closes.push({ seriesId, side, size: BigInt(tape.lots[k]!) * pair.sizeStep, price: tickToPrice(tape.ticks[k]!, pair.tickDecimals), counterparty: 'book' });
  } else state.series.records.leave(record); // never met the book: recycled after the command all the same
  const restLots = lots - record.filledLots;
  if (restLots > 0) {
    const rest = BigInt(restLots) * pair.sizeStep;
    const fund = fundPortfolio(state, sink);
    applyFill(state, sink, { seriesId, price: edge.price, size: rest, lots: restLots, sizeStep: pair.sizeStep, maker: { portfolio: fund, orderId: null }, taker: { portfolio: member, orderId: record.orderId }, takerIsBuy: isBuy, source: 'liquidation', feeFree: true });
    closes.push({ seriesId, side, size: rest, price: edge.price, counterparty: 'fund' });
    record.filledLots = lots;
    record.status = 'filled';
  }
  sink.portfolio(member);
  sink.book(series);
  pushOrderEvent(sink, record, lots, 0, null, null);
  guard?.events(sink);
  return collateralOf(state.oracles.get(pair.pairId)!.spot, size);
}

/**
 * The liquidation spot of the margin account of `p` (engine/risk/liquidationSpot.ts), with
 * `fills` added as positions at their prices and `cashChange` (C6) added to its cash: the
 * what-if's question. Null without positions, or with positions on more than one pair.
 */
export function liquidationSpotOf(state: VenueState, p: Portfolio, fills: readonly { seriesId: Hex; isBuy: boolean; size: bigint; price: bigint }[] = [], cashChange = 0n): bigint | null {
  const accounts = state.accounts;
  let cash = cashChange;
  const balances = new Map<Hex, bigint>();
  for (const m of accounts.marginGroup(accounts.marginAnchor(p))) {
    cash += state.accounts.depositOf(m);
    for (const pos of m.positions.values()) {
      cash += premiumOf(pos);
      balances.set(pos.seriesId, (balances.get(pos.seriesId) ?? 0n) + balanceOf(pos));
    }
  }
  for (const o of fills) {
    const premium = collateralOf(o.size, o.price);
    cash += o.isBuy ? -premium : premium;
    balances.set(o.seriesId, (balances.get(o.seriesId) ?? 0n) + (o.isBuy ? o.size : -o.size));
  }
  let pairId: Hex | null = null;
  const positions: SpotPosition[] = [];
  for (const [seriesId, balance] of balances) {
    const series = state.series.get(seriesId);
    if (balance === 0n || series === undefined || series.settled) continue;
    if (pairId !== null && series.spec.pairId !== pairId) return null;
    pairId = series.spec.pairId;
    positions.push({ isCall: series.spec.isCall, strike: Number(series.spec.strike) / 1e18, expiry: series.spec.expiry, balance: Number(balance) / 1e18 });
  }
  const o = pairId === null ? undefined : state.oracles.get(pairId);
  if (o === undefined) return null;
  return liquidationSpot({ cash: Number(cash) / 1e6, positions, spot: Number(o.spot) / 1e18, volatility: Number(o.volatility) / 1e18, riskFreeRate: Number(o.riskFreeRate) / 1e18, nowMs: state.now, shortFloorRate: Number(state.config.shortFloorRate) / 1e18, maintenanceRate: Number(state.config.maintenanceRate) / 1e18 });
}
