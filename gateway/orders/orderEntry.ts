/**
 * Order entry, top to bottom (issue 7, "Checks, in this order"):
 *
 *   1. parse      the body's entries (orderEntries.ts; 400 OrderValidationError naming the field)
 *   2. check      per entry: the wire's own checks (portfolio default, price to ticks, defaults,
 *                 whose order a cancel names), then the engine's pre-check, the order rules
 *                 Venue.apply runs first (entryChecks.ts; engine/precheck.ts)
 *   3. phase one  unsigned: fill in nonce, deadline, expiry, portfolioId; reply typed data
 *   4. verify     signed: every signature recovered in the worker pool (micro-batched); the
 *                 signer must be the authenticated wallet
 *   5. submit     one engine command (place, cancel or replace: all-or-nothing), which the
 *                 engine checks again for margin, cash, OI cap and self-trade prevention;
 *                 it resolves after the journal commit, and only then is the relay reply built
 *
 * Authentication and the `trade` scope are the HTTP framework's (route declarations).
 */
import { DEFAULT_INSTRUCTIONS, precheckDistinct, type CancelDraft, type CancelOrder, type CancelReason, type Hex, type OrderInstructions, type OrderOutcome, type PlaceOrder } from '../../engine/index.ts';
import { concat, keccak256 } from 'viem';
import { placeOrderDigestHex } from '../../workers/eip712/digest.ts';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../workers/eip712/types.ts';
import type { SingleVerifyRequest } from '../../workers/microBatcher.ts';
import { fieldPath } from './fields.ts';
import type { CancelEntry, PlaceEntry } from './orderEntries.ts';
import type { OrderContext } from './orderContext.ts';
import { deadlineSeconds, signedDeadlineOf, type Check } from './orderChecks.ts';
import { duplicateRefusal } from './refusals.ts';
import { checkCancel, checkPlace, DEFAULT_DEADLINE_SEC, type CheckTime, type Draft, type PlaceDraftOf } from './entryChecks.ts';
import { instructionsJson, type InstructionsJson } from './instructionFields.ts';
import { orderEngineError, orderValidation, signedWith } from './orderErrors.ts';
import type { OrderView } from './orderHistory.ts';

export { DEFAULT_DEADLINE_SEC };

/** What a request asks for: cancels, places, or replacements (cancel i pairs with place i). */
export type OrderRequest = {
  readonly signed: boolean;
  readonly cancels: readonly CancelEntry[];
  readonly places: readonly PlaceEntry[];
  readonly paired: boolean;
  /** The places are a strategy's legs (extensions.md "Strategies"): one `strategy` command, all or nothing. */
  readonly strategy?: boolean;
};

/** A strategy's id: keccak-256 of its legs' order ids in order (so phase one can name it too). */
export function strategyIdOf(orderIds: readonly Hex[]): Hex {
  return keccak256(concat(orderIds));
}

/** One order as the relay reply reports it (api.md "Orders"); amounts already WAD strings. */
export type OrderResult = {
  readonly orderId: Hex;
  readonly status: string;
  readonly filled: string;
  readonly remaining: string;
  readonly trades: readonly { readonly tradeId: string; readonly price: string; readonly size: string }[];
  readonly cancelReason: CancelReason | null;
} & InstructionsJson;

export type { Draft };

export type EntryOutcome =
  | { readonly mode: 'typed_data'; readonly cancels: readonly CancelOrderMessage[]; readonly places: readonly { readonly message: PlaceOrderMessage; readonly orderId: Hex; readonly instructions: OrderInstructions }[] }
  | {
      readonly mode: 'relay';
      readonly cancels: readonly Draft<CancelOrderMessage>[];
      readonly places: readonly PlaceDraftOf[];
      /** The new orders, in request order. */
      readonly orders: readonly OrderResult[];
      /** The orders the request cancelled, in request order. */
      readonly cancelled: readonly OrderResult[];
    };

function checkAll(ctx: OrderContext, owner: string, req: OrderRequest, now: CheckTime): Check<{ cancels: Draft<CancelOrderMessage>[]; places: PlaceDraftOf[] }> {
  const cancels: Draft<CancelOrderMessage>[] = [];
  const places: PlaceDraftOf[] = [];
  for (const e of req.cancels) {
    const c = checkCancel(ctx, owner, e, now, !req.paired);
    if (!c.ok) return c;
    cancels.push(c.value);
  }
  // A replacement's place is judged with the request's cancels taken away (as the engine does).
  const taken: CancelDraft[] = req.paired ? cancels.map((c) => ({ orderId: c.message.orderId, owner, nonce: null, deadline: deadlineSeconds(c.message.deadline) })) : [];
  for (const e of req.places) {
    const p = checkPlace(ctx, owner, e, now, taken);
    if (!p.ok) return p;
    places.push(p.value);
  }
  // The engine's rule for the whole command (no nonce or order named twice); phase-one nonces are not chosen yet.
  const nonceOf = (d: Draft<{ nonce: bigint }>) => (d.message.nonce >= 0n ? d.message.nonce : null);
  const refused = precheckDistinct(
    places.map((d) => ({ owner, nonce: nonceOf(d), orderId: null })),
    cancels.map((d) => ({ owner, nonce: nonceOf(d), orderId: d.message.orderId })),
  );
  if (refused) return { ok: false, error: duplicateRefusal(refused, cancels, places) };
  return { ok: true, value: { cancels, places } };
}

/** Step 4: every signature must recover to the caller. Resolves with the digests (orderIds for places). */
async function verifyAll(ctx: OrderContext, owner: string, cancels: readonly Draft<CancelOrderMessage>[], places: readonly PlaceDraftOf[]): Promise<Check<Hex[]>> {
  const requests: { field: string; request: SingleVerifyRequest }[] = [];
  const domain = ctx.orderBook.domain;
  for (const c of cancels) requests.push({ field: fieldPath(c.path, 'signature'), request: { kind: 'cancel', domain, message: c.message, signature: c.signature!.raw } });
  for (const p of places) requests.push({ field: fieldPath(p.path, 'signature'), request: { kind: 'place', domain, message: p.message, signature: p.signature!.raw } });
  // Issued in one turn: the micro-batcher sends them to the pool as one task per kind.
  const results = await Promise.all(requests.map((r) => ctx.verify(r.request)));
  const wanted = owner.toLowerCase();
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    const field = requests[i]!.field;
    if (r.signer === null) return { ok: false, error: orderValidation(`${field} is not a valid signature of this message: ${r.error ?? 'invalid'}`, { field, reason: 'bad_signature' }) };
    if (r.signer.toLowerCase() !== wanted) {
      return { ok: false, error: orderValidation(`${field} was made by ${r.signer}, not by the authenticated wallet ${owner}`, { field, reason: 'wrong_signer', signer: r.signer, expected: owner, ...signedWith(domain, r.digest) }) };
    }
  }
  return { ok: true, value: results.slice(cancels.length).map((r) => r.digest!) };
}

function outcomeJson(o: OrderOutcome): OrderResult {
  return {
    orderId: o.orderId,
    status: o.status,
    filled: o.filled.toString(),
    remaining: o.remaining.toString(),
    trades: o.trades.map((t) => ({ tradeId: t.tradeId, price: t.price.toString(), size: t.size.toString() })),
    ...instructionsJson(o.instructions),
    cancelReason: o.cancelReason,
  };
}

/** The result of a cancel of an order the venue had already cancelled: the order as the history has it. */
function venueCancelledResult(v: OrderView): OrderResult {
  return { orderId: v.orderId, status: v.status, filled: v.filled.toString(), remaining: '0', trades: [], ...instructionsJson(v.instructions), cancelReason: v.cancelReason };
}

/** Steps 2 to 5 for one request. `owner` is the authenticated wallet, EIP-55. */
export async function enterOrders(ctx: OrderContext, owner: string, req: OrderRequest): Promise<Check<EntryOutcome>> {
  const started = performance.now();
  const nowMs = ctx.services.pipeline.now();
  const checked = checkAll(ctx, owner, req, { ms: nowMs, sec: Math.floor(nowMs / 1000) });
  if (!checked.ok) return checked;
  const { cancels, places } = checked.value;

  if (!req.signed) {
    // Phase one: nonces are handed out only once every entry has passed, in request order.
    const withNonce = <M extends { nonce: bigint }>(d: Draft<M>): M => (d.message.nonce >= 0n ? d.message : { ...d.message, nonce: ctx.nonces.take(owner) });
    const cancelMessages: CancelOrderMessage[] = [];
    const placeMessages: { message: PlaceOrderMessage; instructions: OrderInstructions }[] = [];
    const order = req.paired ? cancels.flatMap((c, i) => [c, places[i]!]) : [...cancels, ...places];
    for (const d of order) {
      if ('orderId' in d.message) cancelMessages.push(withNonce(d as Draft<CancelOrderMessage>));
      else placeMessages.push({ message: withNonce(d as PlaceDraftOf), instructions: (d as PlaceDraftOf).instructions });
    }
    return { ok: true, value: { mode: 'typed_data', cancels: cancelMessages, places: placeMessages.map((p) => ({ message: p.message, orderId: placeOrderDigestHex(ctx.orderBook.separator, p.message), instructions: p.instructions })) } };
  }

  const verifying = performance.now();
  ctx.stages.checks.observe((verifying - started) / 1000);
  const verified = await verifyAll(ctx, owner, cancels, places);
  const recovered = performance.now();
  ctx.stages.signatures.observe((recovered - verifying) / 1000);
  if (!verified.ok) return verified;
  const orderIds = verified.value;

  // A cancel of an order the venue already cancelled (mass cancel, MMP, disconnect, dead-man) is answered with its relay and changes nothing.
  const cancelCommands: CancelOrder[] = cancels.filter((c) => c.venueCancelled === undefined).map((c) => ({ orderId: c.message.orderId, owner, nonce: c.message.nonce, deadline: deadlineSeconds(c.message.deadline) }));
  const placeCommands: PlaceOrder[] = places.map((p, i) => ({
    orderId: orderIds[i]!,
    owner,
    portfolioId: Number(p.message.portfolioId),
    seriesId: p.message.seriesId,
    isBuy: p.message.isBuy,
    tick: p.message.tick,
    size: p.message.size,
    expiry: p.message.expiry,
    nonce: p.message.nonce,
    deadline: deadlineSeconds(p.message.deadline),
    ...signedDeadlineOf(p.message.deadline),
    signature: p.signature!.canonical,
    ...(p.instructions === DEFAULT_INSTRUCTIONS ? {} : { instructions: p.instructions }),
  }));
  if (cancelCommands.length === 0 && placeCommands.length === 0) {
    ctx.stages.journal.observe(0);
    return { ok: true, value: { mode: 'relay', cancels, places, orders: [], cancelled: cancels.map((c) => venueCancelledResult(c.venueCancelled!)) } };
  }
  const result = await ctx.services.pipeline.submit(
    req.strategy === true
      ? { type: 'strategy', strategyId: strategyIdOf(placeCommands.map((p) => p.orderId)), orders: placeCommands }
      : req.paired
      ? { type: 'replace', pairs: cancelCommands.map((cancel, i) => ({ cancel, place: placeCommands[i]! })) }
      : placeCommands.length === 0
        ? { type: 'cancel', cancels: cancelCommands }
        : { type: 'place', orders: placeCommands },
    // The reply is made of this command's result: it goes out before the turn's folds (docs/performance.md).
    { replyFirst: true },
  );
  ctx.stages.journal.observe((performance.now() - recovered) / 1000);
  if (!result.ok) return { ok: false, error: orderEngineError(result.rejection) };
  const outcomes = result.value !== null && 'outcomes' in result.value ? result.value.outcomes : [];
  const cancelledIds = new Set(cancelCommands.map((c) => c.orderId));
  const byOwner = new Map<Hex, OrderResult>();
  for (const e of result.events) {
    if (e.type === 'order' && e.status === 'cancelled' && cancelledIds.has(e.orderId) && e.reason === 'cancelled_by_owner') {
      byOwner.set(e.orderId, { orderId: e.orderId, status: e.status, filled: e.filled.toString(), remaining: e.remaining.toString(), trades: [], ...instructionsJson(e.instructions), cancelReason: e.cancelReason });
    }
  }
  // In request order: the owner's cancels as the engine applied them, the venue's as the history has them.
  const cancelled: OrderResult[] = [];
  for (const c of cancels) {
    const r = c.venueCancelled !== undefined ? venueCancelledResult(c.venueCancelled) : byOwner.get(c.message.orderId);
    if (r !== undefined) cancelled.push(r);
  }
  return { ok: true, value: { mode: 'relay', cancels, places, orders: outcomes.map(outcomeJson), cancelled } };
}
