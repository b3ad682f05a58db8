/**
 * Step 2 of order entry: an entry's early refusal, before its signature is recovered.
 *
 * The order rules are the engine's: the gateway runs the engine's own pre-check
 * (engine/precheck.ts, architecture.md rule 5), the function `Venue.apply` runs first, and
 * only renders its refusal in the wire's words (refusals.ts). What stays here is what is
 * specific to the wire:
 *   - the portfolio default (an MMM wallet may omit it: portfolio 0) and ids past 2^53;
 *   - human units to ticks (a price off the tick grid is refused, never rounded);
 *   - the defaults of an unsigned entry (deadline now + 5 minutes, expiry the series');
 *   - whose order a cancel names, answered from the order history (someone else's order is
 *     a 404 like an unknown one; the caller's finished order names its final status);
 *   - the nonce floor of the order-nonce store (a nonce the engine's window has forgotten).
 * An order id is the signature's digest and a phase-one nonce is handed out after the
 * checks, so the rules needing them (duplicate order, a nonce in use) wait for the engine.
 */
import { exactTick, reject, DEFAULT_INSTRUCTIONS, type CancelDraft, type CancelReason, type Hex, type OrderInstructions, type PlaceDraft } from '../../engine/index.ts';
import type { OrderView } from './orderHistory.ts';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../workers/eip712/types.ts';
import { fieldPath, type SignatureField } from './fields.ts';
import type { CancelEntry, PlaceEntry } from './orderEntries.ts';
import type { OrderContext } from './orderContext.ts';
import { checkCancelTarget, checkNonce, deadlineSeconds, portfolioIdOf, type Check } from './orderChecks.ts';
import { cancelRefusal, placeRefusal } from './refusals.ts';
import { orderValidation } from './orderErrors.ts';

/** Default signature lifetime of typed data handed out (api.md: now + 5 minutes). */
export const DEFAULT_DEADLINE_SEC = 300;

/** Cancels the venue makes for the owner without its signature: a signed cancel of such an order is still answered (for the on-chain cancel). */
const VENUE_CANCELS: ReadonlySet<CancelReason> = new Set(['mass_cancel', 'mmp', 'disconnect', 'dead_man']);

export type Draft<M> = {
  readonly path: string;
  readonly message: M;
  readonly signature: SignatureField | null;
  /** A cancel of an order the venue already cancelled on the owner's behalf (mass cancel, MMP, disconnect, dead-man): signed for the on-chain cancel only. */
  readonly venueCancelled?: OrderView;
};
/** A checked place: its message and its instructions (beside the signed struct). */
export type PlaceDraftOf = Draft<PlaceOrderMessage> & { readonly instructions: OrderInstructions };

/** The time of the check: the pipeline's clock, in ms and in seconds. */
export type CheckTime = { readonly ms: number; readonly sec: number };

/** A place entry. An unsigned entry's nonce is left at -1 until every entry has passed. */
/**
 * A place entry. `cancels`: the request's cancels (a replace), which the order rules take
 * away first (a replacement may keep the client order id of the order it cancels).
 */
export function checkPlace(ctx: OrderContext, owner: string, e: PlaceEntry, now: CheckTime, cancels: readonly CancelDraft[] = []): Check<PlaceDraftOf> {
  const portfolio = portfolioIdOf(ctx, owner, e.signed ? e.message.portfolioId : e.portfolioId, e.path);
  if (!portfolio.ok) return portfolio;
  let message: PlaceOrderMessage;
  if (e.signed) {
    message = e.message;
  } else {
    // Human units to ticks, and the defaults: they need the series' pair (an unknown series is the engine's refusal below).
    const catalog = ctx.services.reads.catalog;
    const series = catalog.series.get(e.seriesId);
    let tick = 0;
    if (series) {
      const field = fieldPath(e.path, 'price');
      const tickDecimals = catalog.pairs.get(series.pairId)!.tickDecimals;
      const exact = exactTick(e.price, tickDecimals, field);
      if (!exact.ok) return { ok: false, error: orderValidation(exact.error.message, { field, reason: 'off_tick_grid', tickDecimals }) };
      tick = exact.value;
    }
    const deadline = e.deadline ?? BigInt(now.sec + DEFAULT_DEADLINE_SEC);
    message = { seriesId: e.seriesId, portfolioId: BigInt(portfolio.value), isBuy: e.isBuy, tick, size: e.size, expiry: e.expiry ?? series?.expiry ?? 0, nonce: -1n, deadline };
  }
  const draft: PlaceDraft = {
    orderId: null,
    owner,
    portfolioId: portfolio.value,
    seriesId: message.seriesId,
    isBuy: message.isBuy,
    tick: message.tick,
    size: message.size,
    expiry: message.expiry,
    nonce: e.signed ? message.nonce : null,
    deadline: deadlineSeconds(message.deadline),
    ...(e.instructions === DEFAULT_INSTRUCTIONS ? {} : { instructions: e.instructions }),
  };
  const refused = ctx.services.venue.precheckEntries(now.ms, cancels, [draft]);
  if (refused) return { ok: false, error: placeRefusal(refused, { path: e.path, signed: e.signed, message, now: now.sec }) };
  if (e.signed) {
    const nonce = checkNonce(ctx, owner, message.nonce, e.path);
    if (!nonce.ok) return nonce;
  }
  return { ok: true, value: { path: e.path, message, signature: e.signed ? e.signature : null, instructions: e.instructions } };
}

/**
 * A cancel entry: the order must be the caller's and open, then the engine's cancel rules.
 * `venueCancelled`: also an order the venue already cancelled without the owner's signature
 * (extensions.md "Cancels": cancel-batch answers such a cancel with its relay for the
 * on-chain cancel and changes nothing else); not for a replace.
 */
export function checkCancel(ctx: OrderContext, owner: string, e: CancelEntry, now: CheckTime, venueCancelled = false): Check<Draft<CancelOrderMessage>> {
  const orderId: Hex = e.signed ? e.message.orderId : e.orderId;
  const deadline = e.signed ? e.message.deadline : (e.deadline ?? BigInt(now.sec + DEFAULT_DEADLINE_SEC));
  const given = e.signed ? e.message.nonce : e.nonce;
  const done = venueCancelled ? ctx.history.finishedOrder(owner, orderId) : null;
  if (done !== null && done.cancelReason !== null && VENUE_CANCELS.has(done.cancelReason)) {
    if (BigInt(now.sec) > deadline) return { ok: false, error: cancelRefusal(reject('deadline_passed', { deadline: deadline.toString() }), { path: e.path, orderId, deadline, now: now.sec }) };
    return { ok: true, value: { path: e.path, message: { orderId, nonce: given ?? -1n, deadline }, signature: e.signed ? e.signature : null, venueCancelled: done } };
  }
  const target = checkCancelTarget(ctx, owner, orderId);
  if (!target.ok) return target;
  const draft: CancelDraft = { orderId, owner, nonce: given, deadline: deadlineSeconds(deadline) };
  const refused = ctx.services.venue.precheckEntries(now.ms, [draft], []);
  if (refused) return { ok: false, error: cancelRefusal(refused, { path: e.path, orderId, deadline, now: now.sec }) };
  if (given !== null) {
    const nonce = checkNonce(ctx, owner, given, e.path);
    if (!nonce.ok) return nonce;
  }
  return { ok: true, value: { path: e.path, message: { orderId, nonce: given ?? -1n, deadline }, signature: e.signed ? e.signature : null } };
}
