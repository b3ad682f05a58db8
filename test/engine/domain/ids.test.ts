/**
 * Clients recompute these ids: check them against an independent implementation (ethers)
 * and against golden values, so that a change in either library would be caught too.
 */
import t from 'tap';
import { AbiCoder, id as ethersId, keccak256 as ethersKeccak } from 'ethers';
import { pairIdOf, seriesIdOf } from '../../../engine/domain/ids.ts';
import { WAD } from '../../../engine/domain/fixed.ts';
import { prng, randBig, randInt } from './prng.ts';

// Computed once with ethers (id / AbiCoder) and kept as golden values.
const GOLDEN_BTC_USDC = '0xdf341c7613634a42cc61efc83db29a7cfbbb79500e215b82d72d7e08a7756247';
const GOLDEN_SERIES = '0x5ed759b0f54418afcfcf90eb3d3cd53bc9f867a5ea3b3b4b6f56dd9020746ba7';

t.test('pairId = keccak256(utf8 bytes of the pair symbol)', async (t) => {
  for (const pair of ['BTC-USDC', 'ETH-USDC', 'SOL-USDT', '']) t.equal(pairIdOf(pair), ethersId(pair), pair);
  t.equal(pairIdOf('BTC-USDC'), GOLDEN_BTC_USDC, 'golden');
  t.not(pairIdOf('btc-usdc'), pairIdOf('BTC-USDC'), 'case-sensitive');
});

t.test('seriesId = keccak256(abi.encode(bytes32, uint256, uint256, bool))', async (t) => {
  const coder = AbiCoder.defaultAbiCoder();
  const ref = (pairId: string, strike: bigint, expiry: number, isCall: boolean): string =>
    ethersKeccak(coder.encode(['bytes32', 'uint256', 'uint256', 'bool'], [pairId, strike, expiry, isCall]));
  const btc = pairIdOf('BTC-USDC');
  t.equal(seriesIdOf(btc, 82000n * WAD, 1767254400, true), ref(btc, 82000n * WAD, 1767254400, true));
  t.equal(seriesIdOf(btc, 82000n * WAD, 1767254400, true), GOLDEN_SERIES, 'golden');
  t.not(seriesIdOf(btc, 82000n * WAD, 1767254400, true), seriesIdOf(btc, 82000n * WAD, 1767254400, false), 'type matters');
  const rnd = prng(11);
  let bad = 0;
  for (let i = 0; i < 300; i++) {
    const pair = pairIdOf(`P${i}-USDC`);
    const strike = randBig(rnd, 30);
    const expiry = randInt(rnd, 1_700_000_000, 4_000_000_000);
    const isCall = rnd() < 0.5;
    const ours = seriesIdOf(pair, strike, expiry, isCall);
    if (ours !== ref(pair, strike, expiry, isCall) || !/^0x[0-9a-f]{64}$/.test(ours)) bad++;
  }
  t.equal(bad, 0, 'random ids agree with ethers and are lowercase');
});
