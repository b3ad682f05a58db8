/**
 * The auditor's check of the orders a journal attributes to traders (docs/chain.md "The audit"):
 * each carries its owner's EIP-712 PlaceOrder signature of exactly the fields it trades on, and
 * its orderId is that message's digest. The same recovery code as the venue's signature workers
 * (workers/verifyBatch.ts), run in this process.
 */
import type { Address } from 'viem';
import type { PlaceOrder } from '../../engine/index.ts';
import { assertSecp256k1Ready } from '../../workers/secp256k1.ts';
import { verifyBatch } from '../../workers/verifyBatch.ts';
import type { Eip712Domain, PlaceOrderMessage } from '../../workers/eip712/types.ts';

export type PlaceCheckDomain = Eip712Domain;

let ready = false;

/** The signed message of a journal's order: what its owner signed, if the journal is honest. */
export function placeMessageOf(o: PlaceOrder): PlaceOrderMessage {
  return { seriesId: o.seriesId, portfolioId: BigInt(o.portfolioId), isBuy: o.isBuy, tick: o.tick, size: o.size, expiry: o.expiry, nonce: o.nonce, deadline: o.signedDeadline ?? BigInt(o.deadline) };
}

/** null when every order is its owner's signed order; else what is wrong with the first that is not. */
export function checkPlaceSignatures(domain: PlaceCheckDomain, orders: readonly PlaceOrder[]): string | null {
  if (!ready) {
    assertSecp256k1Ready(true);
    ready = true;
  }
  const unsigned = orders.find((o) => o.signature === undefined);
  if (unsigned !== undefined) return `order ${unsigned.orderId} of ${unsigned.owner} carries no signature`;
  const results = verifyBatch({ kind: 'place', domain, items: orders.map((o) => ({ message: placeMessageOf(o), signature: o.signature! })) });
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i]!;
    const r = results[i]!;
    if (r.digest === null) return `order ${o.orderId} of ${o.owner}: its fields are not a PlaceOrder (${r.error ?? 'malformed'})`;
    if (r.digest !== o.orderId) return `order ${o.orderId} of ${o.owner}: its fields sign to orderId ${r.digest}, not its own (the order was changed after it was signed)`;
    if (r.signer === null || (r.signer as Address).toLowerCase() !== o.owner.toLowerCase()) return `order ${o.orderId}: signed by ${r.signer ?? 'no one'}, not by its owner ${o.owner}`;
  }
  return null;
}
