/**
 * The settlement stream's item kinds, their lengths and the signed messages they carry
 * (docs/chain.md "Items"), shared by the writer (chain/items.ts) and the decoder
 * (chain/itemsDecode.ts).
 */
import type { Address, Hex } from 'viem';

export const ItemKind = {
  ORDER: 0x01,
  FILL: 0x02,
  LIQUIDATION_FILL: 0x03,
  FUND_FILL: 0x04,
  RFQ_FILL: 0x05,
  MMM_NONCE: 0x06,
  NONCE_FLOOR: 0x07,
  DEPOSIT: 0x10,
  DEPOSIT_REFUND: 0x11,
  MINT: 0x12,
  WITHDRAW: 0x13,
  TRANSFER: 0x14,
  LIQUIDATION_FEE: 0x15,
  DEFICIT: 0x16,
  REBATE: 0x17,
  FORCED_WITHDRAW: 0x18,
  PAIR: 0x20,
  SERIES: 0x21,
  MMM: 0x22,
  SETTLEMENT_PRICE: 0x23,
  SERIES_SETTLED: 0x24,
  SETTLE_POSITION: 0x25,
} as const;
export type ItemKindName = keyof typeof ItemKind;

/** Each kind's length in bytes, its kind byte included (docs/chain.md "Items"). */
export const ITEM_LENGTH: Record<ItemKindName, number> = {
  ORDER: 215,
  FILL: 53,
  LIQUIDATION_FILL: 47,
  FUND_FILL: 94,
  RFQ_FILL: 609,
  MMM_NONCE: 53,
  NONCE_FLOOR: 53,
  DEPOSIT: 9,
  DEPOSIT_REFUND: 9,
  MINT: 45,
  WITHDRAW: 53,
  TRANSFER: 53,
  LIQUIDATION_FEE: 45,
  DEFICIT: 61,
  REBATE: 37,
  FORCED_WITHDRAW: 25,
  PAIR: 34,
  SERIES: 74,
  MMM: 22,
  SETTLEMENT_PRICE: 138,
  SERIES_SETTLED: 33,
  SETTLE_POSITION: 61,
};

export const KIND_NAME = new Map<number, ItemKindName>(Object.entries(ItemKind).map(([name, kind]) => [kind, name as ItemKindName]));

export type SignedOrder = {
  owner: Address;
  seriesId: Hex;
  portfolioId: bigint;
  isBuy: boolean;
  tick: number;
  size: bigint;
  expiry: number;
  nonce: bigint;
  deadline: bigint;
  /** 65-byte r || s || v, v 27 or 28 */
  signature: Hex;
};
export type SignedQuote = {
  mmm: Address;
  taker: Address;
  seriesId: Hex;
  takerIsBuying: boolean;
  price: bigint;
  size: bigint;
  nonce: bigint;
  quoteExpiry: bigint;
  pairId: Hex;
  strike: bigint;
  optionExpiry: bigint;
  isCall: boolean;
  signature: Hex;
};
export type SignedFill = { taker: Address; portfolioId: bigint; fillSize: bigint; nonce: bigint; deadline: bigint; signature: Hex };
