/**
 * The relayer's native transaction signer (chain/relayer/txSigner.ts) against viem's
 * `signTransaction`: the same signed EIP-1559 envelope, byte for byte, for calldata from empty
 * to a large batch, nonces and fees from 0 to beyond 2^64, and values that RLP encodes
 * specially (a single byte below 0x80, strings past 55 bytes). Deterministic inputs.
 */
import t from 'tap';
import { keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { fastSigner } from '../../chain/relayer/txSigner.ts';

const key = keccak256(toHex('txSigner test key'));
const account = privateKeyToAccount(key);
const to = '0x00000000000000000000000000000000000000ab' as const;
const bytes = (n: number, seed: number): Hex => {
  let out = '0x';
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += (x >>> 24).toString(16).padStart(2, '0');
  }
  return out as Hex;
};

t.test('the same signed envelope as viem', async (t) => {
  for (const chainId of [1, 31337, 10143]) {
    const sign = fastSigner(key, chainId, to);
    if (sign === null) throw new Error('native secp256k1 is a dependency: it must load');
    const cases = [
      { nonce: 0, gas: 21_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, data: '0x' as Hex },
      { nonce: 1, gas: 1n, maxFeePerGas: 0x7fn, maxPriorityFeePerGas: 0x7fn, data: '0x01' as Hex },
      { nonce: 127, gas: 128n, maxFeePerGas: 0x80n, maxPriorityFeePerGas: 1n, data: '0x80' as Hex },
      { nonce: 128, gas: 25_000_000n, maxFeePerGas: 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, data: bytes(55, 1) },
      { nonce: 65_535, gas: 500_000_000n, maxFeePerGas: 2n ** 64n + 5n, maxPriorityFeePerGas: 2n ** 63n, data: bytes(56, 2) },
      { nonce: 2 ** 40, gas: 30_000_000n, maxFeePerGas: 123_456_789n, maxPriorityFeePerGas: 1_000n, data: bytes(60_000, 3) },
    ];
    for (const [i, c] of cases.entries()) {
      const ours = sign(c);
      const theirs = await account.signTransaction({ chainId, type: 'eip1559', to, value: 0n, ...c });
      t.equal(ours, theirs, `chain ${chainId}, case ${i}: identical`);
    }
  }
});
