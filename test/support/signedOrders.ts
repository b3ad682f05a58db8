/**
 * Orders that tests submit straight to the engine (the command pipeline, past the gateway),
 * signed as a wallet would sign them, so that a venue with a settlement chain can settle their
 * fills (the chain checks every signature: docs/chain.md). A test wallet whose key is known here
 * (`knownKey`, or a key made by `testAccount`) gets a real EIP-712 order id and signature;
 * another address keeps the unsigned form tests used before.
 */
import { getAddress, hashTypedData, hexToBytes, keccak256, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import secp256k1 from 'secp256k1';
import { orderBookDomain, placeOrderTypes } from '../../workers/eip712/types.ts';

const keys = new Map<Address, Hex>();

/** Remember a test wallet's key, by its address. */
export function knownKey(account: PrivateKeyAccount, key: Hex): PrivateKeyAccount {
  keys.set(account.address, key);
  return account;
}

/** A test wallet from a seed: its key is keccak256 of the seed, remembered. */
export function testAccount(seed: string): PrivateKeyAccount {
  const key = keccak256(toHex(seed));
  return knownKey(privateKeyToAccount(key), key);
}

export type OrderFields = { seriesId: Hex; portfolioId: number; isBuy: boolean; tick: number; size: bigint; expiry: number; nonce: bigint; deadline: number };

/** The order's EIP-712 id and its owner's signature, or null when the owner's key is not known here. */
export function signOrder(venue: { serviceName: string; chainId: number; orderBook: Address }, owner: string, o: OrderFields): { orderId: Hex; signature: Hex } | null {
  const key = keys.get(getAddress(owner));
  if (key === undefined) return null;
  const domain = orderBookDomain(venue.serviceName, venue.chainId, venue.orderBook);
  const orderId = hashTypedData({ domain, types: placeOrderTypes, primaryType: 'PlaceOrder', message: { ...o, portfolioId: BigInt(o.portfolioId), deadline: BigInt(o.deadline) } });
  const { signature, recid } = secp256k1.ecdsaSign(hexToBytes(orderId), hexToBytes(key));
  return { orderId, signature: `0x${Buffer.from(signature).toString('hex')}${recid === 0 ? '1b' : '1c'}` as Hex };
}
