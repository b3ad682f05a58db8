/**
 * The signed order messages as commands carry them (engine/commands.ts `place`, `cancel`,
 * `replace`, `strategy`; a `chain_event` of orders sent to the chain directly: domain/chain.ts).
 */
import type { Hex } from './hex.ts';
import type { OrderInstructions } from './instructions.ts';

export type PlaceOrder = {
  readonly orderId: Hex; // EIP-712 hash of the signed PlaceOrder
  readonly owner: string; // wallet address, the signer
  readonly portfolioId: number;
  readonly seriesId: Hex;
  readonly isBuy: boolean;
  readonly tick: number;
  readonly size: bigint; // WAD
  readonly expiry: number; // good-till, Unix seconds
  readonly nonce: bigint;
  readonly deadline: number; // Unix seconds (MAX_SAFE_INTEGER when the signed value is larger: signedDeadline)
  /** The signed deadline when it is beyond Number.MAX_SAFE_INTEGER (uint256 allows it); absent otherwise. */
  readonly signedDeadline?: bigint;
  /**
   * The owner's EIP-712 signature of the PlaceOrder (65-byte r || s || v hex, v 27 or 28, low s:
   * workers/signature.ts canonicalSignature). The settlement contract checks it again
   * (docs/chain.md); absent in journals written before settlement on chain.
   */
  readonly signature?: Hex;
  /** Beside the signed struct (not hashed into orderId); absent = the defaults (journals written before them decode so). */
  readonly instructions?: OrderInstructions;
};

/**
 * What an order keeps of its signed PlaceOrder beyond the fields the engine trades on: its
 * signed good-till (the engine caps its own at the series' expiry), deadline and signature. A
 * resting order's record holds the command's PlaceOrder itself as this (no copy), and every order
 * event carries it, so the settlement stream can rebuild the signed order (docs/chain.md).
 */
export type SignedOrderFields = Pick<PlaceOrder, 'expiry' | 'deadline' | 'signedDeadline' | 'signature'>;

export type CancelOrder = {
  readonly orderId: Hex;
  readonly owner: string;
  readonly nonce: bigint;
  readonly deadline: number;
};
