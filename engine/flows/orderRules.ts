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
import { MAX_TICK } from '../book/assertArgs.ts';
import type { CancelOrder, PlaceOrder } from '../commands.ts';
import { reject, type Rejection } from '../codes.ts';
import type { VenueState } from '../state.ts';
import type { Portfolio } from '../actors/portfolio.ts';
import type { CancelDraft, CheckedPlace, PlaceDraft, PlaceFacts, ValidCancel, ValidPlace } from './orderDrafts.ts';
import { instructionRules } from './instructionRules.ts';

/** The rules of one place entry, in the order they are checked; `nowSec` is the command's time. */
export function placeRules<T extends PlaceDraft>(state: VenueState, o: T, nowSec: number): PlaceFacts<T> | Rejection {
  const series = state.series.byId(o.seriesId); // the last series found kept: usually a string comparison
  if (!series) return reject('unknown_series', { seriesId: o.seriesId });
  const pair = state.pairs.get(series.spec.pairId)!;
  if (series.settled) return reject('series_settled', { seriesId: o.seriesId });
  if (series.spec.expiry <= nowSec) return reject('series_expired', { seriesId: o.seriesId });
  if (o.tick <= 0) return reject('zero_price', { field: 'tick' });
  // The gateway refuses such a price already (exactTick); the engine's own rule keeps any other entry (a command in the journal, a test) from reaching the book with it.
  if (!(o.tick <= MAX_TICK)) return reject('tick_too_large', { field: 'tick', maxTick: MAX_TICK });
  if (o.size % pair.sizeStep !== 0n) return reject('off_size_step', { field: 'size', sizeStep: pair.sizeStep.toString() });
  if (o.size < pair.minSize) return reject('below_min_size', { field: 'size', minSize: pair.minSize.toString() });
  const lots = o.size / pair.sizeStep;
  if (lots > state.maxOrderLots) return reject('size_too_large', { field: 'size' });
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
  return { o, wallet, seriesHandle: series.handle, pair, portfolio, lots: Number(lots), price: tickToPrice(o.tick, pair.tickDecimals) };
}

/** The checks of one order that need neither the rest of its command nor a risk figure (those follow in enterOrders). */
export function validatePlace(state: VenueState, o: PlaceOrder, nowSec: number = state.nowSec): CheckedPlace | Rejection {
  return placeRules(state, o, nowSec);
}

/** The rules of one cancel entry (`c`, an order's cancel or a draft of one). */
export function cancelRules<T extends CancelDraft>(state: VenueState, c: T, nowSec: number): { readonly c: T; readonly wallet: number; readonly open: number } | Rejection {
  const open = state.orderIndex.get(c.orderId);
  if (open === undefined) return reject('unknown_order', { orderId: c.orderId });
  if (state.accounts.orders.owner[open] !== c.owner) return reject('not_owner', { orderId: c.orderId });
  if (c.deadline < nowSec) return reject('deadline_passed', { deadline: c.deadline });
  // The order's owner placed it, so its wallet exists: the handle its portfolio carries, no lookup.
  const wallet = state.accounts.holderOf(open).wallet;
  if (c.nonce !== null && state.accounts.nonces[wallet]!.isUsed(c.nonce)) return reject('nonce_used', { nonce: c.nonce.toString() });
  return { c, wallet, open };
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

/** Nonces and order ids must be unique within one command (entries without them yet are skipped). */
export function checkUnique(places: readonly (Keyed & { readonly orderId: Hex | null })[], cancels: readonly (Keyed & { readonly orderId: Hex })[]): Rejection | null {
  if (places.length + cancels.length < 2) return null;
  const ids = new Set<string>();
  const nonces = new Set<string>();
  for (const x of [...places, ...cancels]) {
    if (x.nonce === null) continue;
    const n = `${x.owner}|${x.nonce}`;
    if (nonces.has(n)) return reject('duplicate_in_batch', { nonce: x.nonce.toString() });
    nonces.add(n);
  }
  for (const p of places) {
    if (p.orderId === null) continue;
    if (ids.has(p.orderId)) return reject('duplicate_in_batch', { orderId: p.orderId });
    ids.add(p.orderId);
  }
  for (const c of cancels) {
    if (ids.has(`cancel|${c.orderId}`)) return reject('duplicate_in_batch', { orderId: c.orderId });
    ids.add(`cancel|${c.orderId}`);
  }
  return null;
}

/** The command-wide rules: not empty, not larger than the venue's batch. */
export function checkBatch(state: VenueState, cancels: number, places: number): Rejection | null {
  if (cancels + places === 0) return reject('batch_empty');
  if (Math.max(cancels, places) > state.config.maxBatch) return reject('batch_too_large', { max: state.config.maxBatch });
  return null;
}

export type CheckedOrders = { readonly cancels: readonly ValidCancel[]; readonly places: readonly CheckedPlace[] };

/** Every order rule of one place, cancel or replace command, in the order the engine applies them. */
export function checkOrders(state: VenueState, cancels: readonly CancelOrder[], places: readonly PlaceOrder[], nowSec: number, nowMs: number = state.now): CheckedOrders | Rejection {
  const batch = checkBatch(state, cancels.length, places.length);
  if (batch) return batch;
  const unique = checkUnique(places, cancels);
  if (unique) return unique;
  // Arrays sized up front: most commands carry one entry, and `[]` grows room for 17 on its first push.
  const validCancels = new Array<ValidCancel>(cancels.length);
  for (let i = 0; i < cancels.length; i++) {
    const v = validateCancel(state, cancels[i]!, nowSec);
    if ('code' in v) return v;
    validCancels[i] = v;
  }
  const checked = new Array<CheckedPlace>(places.length);
  for (let i = 0; i < places.length; i++) {
    const v = validatePlace(state, places[i]!, nowSec);
    if ('code' in v) return v;
    const refused = instructionRules(state, v, places, i, cancels, nowMs);
    if (refused) return refused;
    checked[i] = v;
  }
  return { cancels: validCancels, places: checked };
}
