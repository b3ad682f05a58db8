/**
 * The order rules: every check of a place, cancel or replace that needs neither a risk
 * figure nor the rest of the book. One set, run by the engine when it applies an order
 * command (flows/orders.ts) and by the gateway before a signature is recovered
 * (engine/precheck.ts, architecture.md rule 5).
 *
 * Pure: a check reads the state and changes nothing (no account, portfolio or nonce is
 * created). A market maker's internal portfolio that does not exist yet is created by the
 * apply step (`withPortfolio`), once every rule has passed.
 */
import type { Hex } from '../domain/hex.ts';
import { tickToPrice } from '../domain/ticks.ts';
import { lotsOfSize } from '../domain/lots.ts';
import { MAX_TICK } from '../book/assertArgs.ts';
import type { CancelOrder, PlaceOrder } from '../commands.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { Pair } from '../actors/registry.ts';
import type { CancelDraft, CheckedPlace, PlaceDraft, PlaceFacts, ValidCancel, ValidPlace } from './orderDrafts.ts';
import { instructionRules } from './instructionRules.ts';

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The facts of a place entry (or of a draft of one), before the rules write them. */
function blankFacts<T extends PlaceDraft>(): Writable<PlaceFacts<T>> {
  return { o: null as unknown as T, wallet: -1, seriesHandle: -1, pair: null as unknown as Pair, portfolio: null, lots: 0, price: 0n };
}

/** The rules of one place entry, in the order they are checked; `nowSec` is the command's time. */
export function placeRules<T extends PlaceDraft>(state: VenueState, o: T, nowSec: number): PlaceFacts<T> | Rejection {
  const facts = blankFacts<T>();
  return placeFactsInto(state, o, nowSec, facts) ?? facts;
}

/** `placeRules` writing what it found into `into` (every field, when they pass): null, or the refusal. */
function placeFactsInto<T extends PlaceDraft>(state: VenueState, o: T, nowSec: number, into: Writable<PlaceFacts<T>>): Rejection | null {
  const series = state.series.byId(o.seriesId); // the last series found kept: usually a string comparison
  if (!series) return reject('unknown_series', { seriesId: o.seriesId });
  const pair = state.pairs.get(series.spec.pairId)!;
  if (series.settled) return reject('series_settled', { seriesId: o.seriesId });
  if (series.spec.expiry <= nowSec) return reject('series_expired', { seriesId: o.seriesId });
  if (o.tick <= 0) return reject('zero_price', { field: 'tick' });
  // The gateway refuses such a price already (exactTick); the engine's own rule keeps any other entry (a command in the journal, a test) from reaching the book with it.
  if (!(o.tick <= MAX_TICK)) return reject('tick_too_large', { field: 'tick', maxTick: MAX_TICK });
  const lots = lotsOfSize(o.size, pair.sizeStep); // NaN off the step
  if (lots !== lots) return reject('off_size_step', { field: 'size', sizeStep: pair.sizeStep.toString() });
  if (o.size < pair.minSize) return reject('below_min_size', { field: 'size', minSize: pair.minSize.toString() });
  if (lots > state.config.maxOrderLots) return reject('size_too_large', { field: 'size' });
  if (o.deadline < nowSec) return reject('deadline_passed', { deadline: o.deadline });
  if (o.expiry <= nowSec) return reject('order_expiry_passed', { expiry: o.expiry });
  // The owner interned once (its wallet handle, -1 when never used): the rest is read by handle.
  const accounts = state.accounts;
  const wallet = accounts.walletOf(o.owner);
  if (o.nonce !== null && wallet >= 0 && accounts.nonces[wallet]!.isUsed(o.nonce)) return reject('nonce_used', { nonce: o.nonce.toString() });
  if (o.orderId !== null && state.orderIndex.has(o.orderId)) return reject('duplicate_order', { orderId: o.orderId });
  let portfolio: Portfolio | null;
  if (o.portfolioId === 0) {
    if (wallet < 0 || accounts.isMmm[wallet] !== 1) return reject('portfolio_reserved', { portfolioId: 0 });
    portfolio = accounts.internalOf(wallet, pair.pairId);
  } else {
    portfolio = accounts.portfolioOf(wallet, o.portfolioId) ?? null;
    if (!portfolio || portfolio.id < 0) return reject('unknown_portfolio', { portfolioId: o.portfolioId });
  }
  if (!series.marks || !state.oracles.has(pair.pairId)) return reject('no_oracle_price', { pairId: pair.pairId });
  into.o = o;
  into.wallet = wallet;
  into.seriesHandle = series.handle;
  into.pair = pair;
  into.portfolio = portfolio;
  into.lots = lots;
  into.price = tickToPrice(o.tick, pair.tickDecimals);
  return null;
}

/** The checks of one order that need neither the rest of its command nor a risk figure (those follow in enterOrders). */
export function validatePlace(state: VenueState, o: PlaceOrder, nowSec: number = state.nowSec): CheckedPlace | Rejection {
  return placeRules(state, o, nowSec);
}

/** What the cancel rules found for `c` (an order's cancel or a draft of one): its owner's wallet handle and the order's slot. */
type CancelFacts<T extends CancelDraft> = { readonly c: T; readonly wallet: number; readonly open: number };

/** The rules of one cancel entry (`c`, an order's cancel or a draft of one). */
export function cancelRules<T extends CancelDraft>(state: VenueState, c: T, nowSec: number): CancelFacts<T> | Rejection {
  const facts: Writable<CancelFacts<T>> = { c, wallet: -1, open: -1 };
  return cancelFactsInto(state, c, nowSec, facts) ?? facts;
}

/** `cancelRules` writing what it found into `into` (every field, when they pass): null, or the refusal. */
function cancelFactsInto<T extends CancelDraft>(state: VenueState, c: T, nowSec: number, into: Writable<CancelFacts<T>>): Rejection | null {
  const open = state.orderIndex.get(c.orderId);
  if (open === undefined) return reject('unknown_order', { orderId: c.orderId });
  if (state.accounts.orders.owner[open] !== c.owner) return reject('not_owner', { orderId: c.orderId });
  if (c.deadline < nowSec) return reject('deadline_passed', { deadline: c.deadline });
  // The order's owner placed it, so its wallet exists: the handle its portfolio carries, no lookup.
  const wallet = state.accounts.holderOf(open).wallet;
  if (c.nonce !== null && state.accounts.nonces[wallet]!.isUsed(c.nonce)) return reject('nonce_used', { nonce: c.nonce.toString() });
  into.c = c;
  into.wallet = wallet;
  into.open = open;
  return null;
}

export function validateCancel(state: VenueState, c: CancelOrder, nowSec: number = state.nowSec): ValidCancel | Rejection {
  return cancelRules(state, c, nowSec);
}

/** The place as the apply step needs it: a market maker's internal portfolio is created on first use. */
export function withPortfolio(state: VenueState, v: CheckedPlace): ValidPlace {
  if (v.portfolio !== null) return v as ValidPlace;
  return { ...v, portfolio: state.accounts.internalPortfolioOf(v.wallet, v.pair.pairId, state.now) };
}

/** What uniqueness within a command looks at: the wallet and the nonce (null: not chosen yet). */
export type Keyed = { readonly owner: string; readonly nonce: bigint | null };

/**
 * Nonces and order ids must be unique within one command (entries without them yet are
 * skipped). The first entry, places then cancels, whose nonce an earlier entry of its wallet
 * used; then the first place whose order id an earlier place has; then the first cancel whose
 * order an earlier cancel names. Compared pairwise (a command holds at most maxBatch of each:
 * checkBatch), no set or key built: nothing allocated unless refused.
 */
export function checkUnique(places: readonly (Keyed & { readonly orderId: Hex | null })[], cancels: readonly (Keyed & { readonly orderId: Hex })[]): Rejection | null {
  const np = places.length;
  const n = np + cancels.length;
  if (n < 2) return null;
  for (let k = 1; k < n; k++) {
    const x = k < np ? places[k]! : cancels[k - np]!;
    if (x.nonce === null) continue;
    for (let j = 0; j < k; j++) {
      const y = j < np ? places[j]! : cancels[j - np]!;
      if (y.nonce === x.nonce && y.owner === x.owner) return reject('duplicate_in_batch', { nonce: x.nonce.toString() });
    }
  }
  for (let k = 1; k < np; k++) {
    const id = places[k]!.orderId;
    if (id === null) continue;
    for (let j = 0; j < k; j++) if (places[j]!.orderId === id) return reject('duplicate_in_batch', { orderId: id });
  }
  for (let k = 1; k < cancels.length; k++) {
    const id = cancels[k]!.orderId;
    for (let j = 0; j < k; j++) if (cancels[j]!.orderId === id) return reject('duplicate_in_batch', { orderId: id });
  }
  return null;
}

/** The command-wide rules: not empty, not larger than the venue's batch. */
export function checkBatch(state: VenueState, cancels: number, places: number): Rejection | null {
  if (cancels + places === 0) return reject('batch_empty');
  if (Math.max(cancels, places) > state.config.maxBatch) return reject('batch_too_large', { max: state.config.maxBatch });
  return null;
}

/**
 * What `checkOrders` found for a command that passed: its first `cancelCount` cancels and
 * `placeCount` places, in the command's order (entries past the counts are stale). Reused
 * storage, rewritten by the next `checkOrders`: read it before then (enterOrders applies the
 * command it checked; the pre-check keeps nothing).
 */
export type CheckedOrders = { readonly cancels: readonly ValidCancel[]; readonly cancelCount: number; readonly places: readonly CheckedPlace[]; readonly placeCount: number };

// The storage of CheckedOrders: one entry object per position, grown to the largest command checked, never shrunk.
const CHECKED_CANCELS: Writable<ValidCancel>[] = [];
const CHECKED_PLACES: Writable<CheckedPlace>[] = [];
const CHECKED: Writable<CheckedOrders> = { cancels: CHECKED_CANCELS, cancelCount: 0, places: CHECKED_PLACES, placeCount: 0 };

function cancelEntry(i: number): Writable<ValidCancel> {
  while (CHECKED_CANCELS.length <= i) CHECKED_CANCELS.push({ c: null as unknown as CancelOrder, wallet: -1, open: -1 });
  return CHECKED_CANCELS[i]!;
}

function placeEntry(i: number): Writable<CheckedPlace> {
  while (CHECKED_PLACES.length <= i) CHECKED_PLACES.push(blankFacts<PlaceOrder>());
  return CHECKED_PLACES[i]!;
}

/** How many entries the reused storage of `checkOrders` holds (cancels, places): the largest command checked. For tests. */
export function checkedCapacity(): { readonly cancels: number; readonly places: number } {
  return { cancels: CHECKED_CANCELS.length, places: CHECKED_PLACES.length };
}

/**
 * Every order rule of one place, cancel or replace command, in the order the engine applies
 * them. `nowMs` (market maker protection's time) is the state's clock unless given: left
 * undefined, as the engine leaves it, it is read where it is needed (instructionRules), not
 * passed along as a double (a double argument of a call not inlined is boxed: an allocation).
 */
export function checkOrders(state: VenueState, cancels: readonly CancelOrder[], places: readonly PlaceOrder[], nowSec: number, nowMs?: number): CheckedOrders | Rejection {
  const batch = checkBatch(state, cancels.length, places.length);
  if (batch) return batch;
  const unique = checkUnique(places, cancels);
  if (unique) return unique;
  CHECKED.cancelCount = 0;
  CHECKED.placeCount = 0;
  for (let i = 0; i < cancels.length; i++) {
    const refused = cancelFactsInto(state, cancels[i]!, nowSec, cancelEntry(i));
    if (refused) return refused;
  }
  for (let i = 0; i < places.length; i++) {
    const v = placeEntry(i);
    const refused = placeFactsInto(state, places[i]!, nowSec, v) ?? instructionRules(state, v, places, i, cancels, nowMs);
    if (refused) return refused;
  }
  CHECKED.cancelCount = cancels.length;
  CHECKED.placeCount = places.length;
  return CHECKED;
}

/**
 * Every rule passed: the market maker's internal portfolios the checked places use for the
 * first time are created now (their entries' `portfolio` set), so that each is a ValidPlace.
 */
export function withPortfolios(state: VenueState, checked: CheckedOrders): readonly ValidPlace[] {
  const places = checked.places as Writable<CheckedPlace>[];
  for (let i = 0; i < checked.placeCount; i++) {
    const v = places[i]!;
    if (v.portfolio === null) v.portfolio = state.accounts.internalPortfolioOf(v.wallet, v.pair.pairId, state.now);
  }
  return places as readonly ValidPlace[];
}
