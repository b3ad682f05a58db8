/**
 * An order as its series holds it: the series actor matches it and keeps its fills and status
 * (engine/actors/series.ts); the account side's open order keeps its own copy of the fixed
 * fields (engine/actors/portfolio.ts), a match's outcome lists the records it filled or removed
 * (for their order events), and events and snapshots carry its fields. Data only.
 *
 * The series side's records are recycled (actors/recordPool.ts): a record is valid from the
 * order's entry until the end of the command in which its order left the book (or never
 * rested), after which it belongs to another order. Holders copy what they keep (the account
 * side's slot, an event) and keep no record past its command.
 */
import type { Hex } from '../domain/hex.ts';
import type { OrderStatus } from '../events.ts';
import type { OrderInstructions } from '../domain/instructions.ts';
import type { SignedOrderFields } from '../commands.ts';

export type OrderRecord = {
  readonly orderId: Hex;
  readonly seriesId: Hex;
  readonly ref: number;
  readonly owner: string;
  readonly ownerIndex: number;
  /** The portfolio named by the order, and where its fills go (differs for market makers). */
  readonly portfolioId: number;
  readonly routedPortfolioId: number;
  readonly isBuy: boolean;
  readonly tick: number;
  readonly lots: number;
  /** The signed order's nonce; absent (or undefined) for the venue's own orders and for an order restored from a snapshot taken before records kept it. */
  readonly nonce?: bigint | undefined;
  filledLots: number;
  status: OrderStatus;
  readonly expiry: number; // seconds
  readonly createdAt: number; // ms
  /** Its instructions (the shared default object when it named none). */
  readonly instructions: OrderInstructions;
  /** What the owner signed beyond the fields above (the place command's PlaceOrder itself); null for the venue's own orders and records restored from before signatures were kept. */
  readonly signed?: SignedOrderFields | null | undefined;
};
