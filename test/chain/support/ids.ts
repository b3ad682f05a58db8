/** The venue's ids (docs/domain.md), computed with viem for the tests. */
import { encodeAbiParameters, keccak256, toHex, type Hex } from 'viem';

export function pairIdOf(symbol: string): Hex {
  return keccak256(toHex(symbol));
}

export function seriesIdOf(pairId: Hex, strike: bigint, expiry: number | bigint, isCall: boolean): Hex {
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bool' }], [pairId, strike, BigInt(expiry), isCall]));
}
