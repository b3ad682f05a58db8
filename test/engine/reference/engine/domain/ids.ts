/**
 * Identifiers clients recompute themselves (api.md "Identifiers"): any change here breaks
 * every client, so the definitions are exactly the documented viem expressions.
 */
import { encodeAbiParameters, keccak256, toBytes } from 'viem';
import type { Hex } from './hex.ts';
import type { Wad } from './fixed.ts';

const SERIES_PARAMS = [
  { type: 'bytes32', name: 'pairId' },
  { type: 'uint256', name: 'strike' },
  { type: 'uint256', name: 'expiry' },
  { type: 'bool', name: 'isCall' },
] as const;

/** pairId = keccak256(toBytes(pairSymbol)), e.g. of "BTC-USDC". Case-sensitive by definition. */
export function pairIdOf(pairSymbol: string): Hex {
  return keccak256(toBytes(pairSymbol));
}

/**
 * seriesId = keccak256(abi.encode(bytes32 pairId, uint256 strike, uint256 expiry, bool isCall)),
 * strike in WAD, expiry in Unix seconds. viem lowercases the hash, as parseBytes32 does.
 */
export function seriesIdOf(pairId: Hex, strike: Wad, expiry: number, isCall: boolean): Hex {
  return keccak256(encodeAbiParameters(SERIES_PARAMS, [pairId, strike, BigInt(expiry), isCall]));
}
