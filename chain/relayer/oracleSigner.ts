/**
 * The oracle key's signature of an expiry's settlement price (docs/chain.md SETTLEMENT_PRICE):
 * EIP-712 `SettlementPrice(bytes32 pairId, uint256 expiry, uint256 price)` in the domain
 * `${SERVICE_NAME}OptionsOracle`, version 1, verifying contract `oracle`. The oracle key is not
 * the relayer's: the oracle contract accepts a price only from it. Synchronous (the relayer
 * writes the item as it cuts), with libsecp256k1's low-s signatures.
 */
import secp256k1 from 'secp256k1';
import { hashTypedData, hexToBytes, type Address, type Hex } from 'viem';

export const settlementPriceTypes = {
  SettlementPrice: [
    { name: 'pairId', type: 'bytes32' },
    { name: 'expiry', type: 'uint256' },
    { name: 'price', type: 'uint256' },
  ],
} as const;

export function oracleDomain(serviceName: string, chainId: number, oracle: Address) {
  return { name: `${serviceName}OptionsOracle`, version: '1', chainId, verifyingContract: oracle } as const;
}

/** A signer of settlement prices with `privateKey` (32 bytes hex). */
export function settlementPriceSigner(privateKey: Hex, serviceName: string, chainId: number, oracle: Address): (pairId: Hex, expiry: number, price: bigint) => Hex {
  const key = hexToBytes(privateKey);
  const domain = oracleDomain(serviceName, chainId, oracle);
  return (pairId, expiry, price) => {
    const digest = hashTypedData({ domain, types: settlementPriceTypes, primaryType: 'SettlementPrice', message: { pairId, expiry: BigInt(expiry), price } });
    const { signature, recid } = secp256k1.ecdsaSign(hexToBytes(digest), key);
    return `0x${Buffer.from(signature).toString('hex')}${recid === 0 ? '1b' : '1c'}` as Hex;
  };
}
