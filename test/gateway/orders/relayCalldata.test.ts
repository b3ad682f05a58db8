/**
 * placeOrderSigned's calldata is written directly (gateway/orders/relay.ts): byte for byte
 * viem's `encodeFunctionData` on the same ABI, for seeded random orders and for every field at
 * the edges of its type; what the direct path does not cover (upper-case hex, values out of
 * range) goes to viem, which encodes or refuses it as before.
 */
import t from 'tap';
import { decodeFunctionData, encodeFunctionData, type Hex } from 'viem';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { placeCalldata } from '../../../gateway/orders/relay.ts';
import type { PlaceOrderMessage } from '../../../workers/eip712/types.ts';
import { prng } from '../../engine/domain/prng.ts';

const viem = (message: PlaceOrderMessage, signature: Hex): Hex => encodeFunctionData({ abi: orderBookAbi, functionName: 'placeOrderSigned', args: [message, signature] });

const rnd = prng(20261127);
const hex = (bytes: number): Hex => `0x${Array.from({ length: bytes }, () => Math.floor(rnd() * 256).toString(16).padStart(2, '0')).join('')}` as Hex;
const big = (bits: number): bigint => BigInt(hex(Math.ceil(bits / 8))) & ((1n << BigInt(bits)) - 1n);
const order = (over: Partial<PlaceOrderMessage> = {}): PlaceOrderMessage => ({
  seriesId: hex(32),
  portfolioId: big(Math.floor(rnd() * 256) + 1),
  isBuy: rnd() < 0.5,
  tick: Math.floor(rnd() * 2 ** 32),
  size: big(Math.floor(rnd() * 128) + 1),
  expiry: Math.floor(rnd() * 2 ** 32),
  nonce: big(Math.floor(rnd() * 256) + 1),
  deadline: big(Math.floor(rnd() * 64) + 1),
  ...over,
});

t.test('seeded random orders: the same calldata as viem, and it decodes back to the order', async (t) => {
  let differ = 0;
  for (let i = 0; i < 2000; i++) {
    const m = order();
    const sig = hex(65);
    if (placeCalldata({ message: m, signature: sig }) !== viem(m, sig)) differ++;
  }
  t.equal(differ, 0, '2,000 orders, none differs');
  const m = order({ isBuy: true });
  const sig = hex(65);
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: placeCalldata({ message: m, signature: sig }) });
  t.same(decoded.args, [m, sig], 'decodes to the order and its signature');
});

t.test('every field at the edges of its type', async (t) => {
  const max = (bits: number) => (1n << BigInt(bits)) - 1n;
  const edges: Partial<PlaceOrderMessage>[] = [
    { portfolioId: 0n, size: 0n, nonce: 0n, deadline: 0n, tick: 0, expiry: 0, isBuy: false, seriesId: `0x${'0'.repeat(64)}` },
    { portfolioId: max(256), size: max(128), nonce: max(256), deadline: max(256), tick: 2 ** 32 - 1, expiry: 2 ** 32 - 1, isBuy: true, seriesId: `0x${'f'.repeat(64)}` },
  ];
  for (const e of edges) {
    const m = order(e);
    const sig = hex(65);
    t.equal(placeCalldata({ message: m, signature: sig }), viem(m, sig), `equal at ${JSON.stringify(e, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  }
});

t.test('outside the direct path: viem decides, as before', async (t) => {
  const sig = hex(65);
  const upper = order({ seriesId: `0x${'AB'.repeat(32)}` });
  t.equal(placeCalldata({ message: upper, signature: sig }), viem(upper, sig), 'upper-case hex: viem encodes it');
  const upperSig = `0x${'CD'.repeat(65)}` as Hex;
  const m0 = order();
  t.equal(placeCalldata({ message: m0, signature: upperSig }), viem(m0, upperSig), 'an upper-case signature: viem encodes it');
  for (const [label, over] of [
    ['size past uint128', { size: 1n << 128n }],
    ['a negative nonce', { nonce: -1n }],
    ['a tick past uint32', { tick: 2 ** 32 }],
  ] as const) {
    const m = order(over as Partial<PlaceOrderMessage>);
    let theirs: string;
    try {
      theirs = viem(m, sig);
    } catch (e) {
      theirs = `throws ${(e as Error).name}`;
    }
    let ours: string;
    try {
      ours = placeCalldata({ message: m, signature: sig });
    } catch (e) {
      ours = `throws ${(e as Error).name}`;
    }
    t.equal(ours, theirs, `${label}: ${theirs.startsWith('throws') ? theirs : 'encoded'} as viem does`);
  }
});
