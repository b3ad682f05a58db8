/**
 * The EIP-712 objects the venue signs (api.md "Signing"), in viem's typed-data format so
 * that gateway replies can embed them as they are and any viem client can sign them.
 *
 * Field orders are exactly the interface's: the type hash depends on them, so changing
 * an order (or a type) here changes every orderId and quoteId.
 *
 * Numeric fields follow viem's own inference for these Solidity types (abitype): integers
 * of at most 48 bits (`uint32` tick and expiry) are `number`, wider ones are `bigint`.
 * A message of these types can therefore be passed to viem's `hashTypedData` /
 * `signTypedData` unchanged.
 */
import type { Address, Hex } from 'viem';

/** An EIP-712 domain as the venue uses it: all four fields are always present. */
export type Eip712Domain = {
  readonly name: string;
  readonly version: string;
  readonly chainId: number;
  readonly verifyingContract: Address;
};

/** Domain version of both venue domains (interface: "Signing domains carry version 1"). */
export const DOMAIN_VERSION = '1';

/**
 * The `EIP712Domain` type of our domains. Not part of the envelopes below: viem adds it
 * itself, and ethers refuses `types` that contain it ("ambiguous primary types"). A
 * client calling a wallet's raw `eth_signTypedData_v4` adds it to `types` first.
 */
export const eip712DomainType = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

/** `${serviceName}OptionsOrderBook`, version 1: PlaceOrder and CancelOrder. */
export function orderBookDomain(serviceName: string, chainId: number, verifyingContract: Address): Eip712Domain {
  return { name: `${serviceName}OptionsOrderBook`, version: DOMAIN_VERSION, chainId, verifyingContract };
}

/** `${serviceName}OptionsRFQ`, version 1: RfqQuote and FillQuote. */
export function rfqDomain(serviceName: string, chainId: number, verifyingContract: Address): Eip712Domain {
  return { name: `${serviceName}OptionsRFQ`, version: DOMAIN_VERSION, chainId, verifyingContract };
}

export const placeOrderTypes = {
  PlaceOrder: [
    { name: 'seriesId', type: 'bytes32' },
    { name: 'portfolioId', type: 'uint256' },
    { name: 'isBuy', type: 'bool' },
    { name: 'tick', type: 'uint32' },
    { name: 'size', type: 'uint128' },
    { name: 'expiry', type: 'uint32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export const cancelOrderTypes = {
  CancelOrder: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export const rfqQuoteTypes = {
  RfqQuote: [
    { name: 'mmm', type: 'address' },
    { name: 'taker', type: 'address' },
    { name: 'seriesId', type: 'bytes32' },
    { name: 'takerIsBuying', type: 'bool' },
    { name: 'price', type: 'uint256' },
    { name: 'size', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'quoteExpiry', type: 'uint256' },
    { name: 'pairId', type: 'bytes32' },
    { name: 'strike', type: 'uint256' },
    { name: 'optionExpiry', type: 'uint256' },
    { name: 'isCall', type: 'bool' },
  ],
} as const;

/** The taker's signed fill of an RFQ quote (our own type, api.md). */
export const fillQuoteTypes = {
  FillQuote: [
    { name: 'quoteId', type: 'bytes32' },
    { name: 'portfolioId', type: 'uint256' },
    { name: 'fillSize', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export type PlaceOrderMessage = {
  readonly seriesId: Hex;
  readonly portfolioId: bigint;
  readonly isBuy: boolean;
  /** uint32 */
  readonly tick: number;
  /** uint128, WAD */
  readonly size: bigint;
  /** uint32, Unix seconds: the order's good-till time */
  readonly expiry: number;
  readonly nonce: bigint;
  /** Unix seconds: the signature is void after it */
  readonly deadline: bigint;
};

export type CancelOrderMessage = {
  readonly orderId: Hex;
  readonly nonce: bigint;
  readonly deadline: bigint;
};

export type RfqQuoteMessage = {
  readonly mmm: Address;
  readonly taker: Address;
  readonly seriesId: Hex;
  readonly takerIsBuying: boolean;
  readonly price: bigint;
  readonly size: bigint;
  readonly nonce: bigint;
  readonly quoteExpiry: bigint;
  readonly pairId: Hex;
  readonly strike: bigint;
  readonly optionExpiry: bigint;
  readonly isCall: boolean;
};

export type FillQuoteMessage = {
  readonly quoteId: Hex;
  readonly portfolioId: bigint;
  readonly fillSize: bigint;
  readonly nonce: bigint;
  readonly deadline: bigint;
};

/**
 * What a client needs to sign one object: viem's `signTypedData` parameters, and the
 * interface's `typedData` reply field once bigints are written as strings.
 */
export type TypedDataEnvelope<P extends string, T, M> = {
  readonly domain: Eip712Domain;
  readonly types: T;
  readonly primaryType: P;
  readonly message: M;
};

export function placeOrderTypedData(domain: Eip712Domain, message: PlaceOrderMessage): TypedDataEnvelope<'PlaceOrder', typeof placeOrderTypes, PlaceOrderMessage> {
  return { domain, types: placeOrderTypes, primaryType: 'PlaceOrder', message };
}

export function cancelOrderTypedData(domain: Eip712Domain, message: CancelOrderMessage): TypedDataEnvelope<'CancelOrder', typeof cancelOrderTypes, CancelOrderMessage> {
  return { domain, types: cancelOrderTypes, primaryType: 'CancelOrder', message };
}

export function rfqQuoteTypedData(domain: Eip712Domain, message: RfqQuoteMessage): TypedDataEnvelope<'RfqQuote', typeof rfqQuoteTypes, RfqQuoteMessage> {
  return { domain, types: rfqQuoteTypes, primaryType: 'RfqQuote', message };
}

export function fillQuoteTypedData(domain: Eip712Domain, message: FillQuoteMessage): TypedDataEnvelope<'FillQuote', typeof fillQuoteTypes, FillQuoteMessage> {
  return { domain, types: fillQuoteTypes, primaryType: 'FillQuote', message };
}
