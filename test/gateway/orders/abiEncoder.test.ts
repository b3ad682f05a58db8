/**
 * The order book's relay calldata (gateway/orders/abiEncoder.ts through relay.ts) is the
 * very string viem's encodeFunctionData returns, on seeded random messages (integers at
 * every magnitude and at their edges, batches of 1 to 50, 65- and 64-byte and odd-sized
 * `bytes`), and refuses what viem refuses.
 */
import t from 'tap';
import { encodeFunctionData, keccak256, toBytes, type Hex } from 'viem';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { callEncoder } from '../../../gateway/orders/abiEncoder.ts';
import { cancelBatchCalldata, placeBatchCalldata, placeCalldata, replaceBatchCalldata, replaceCalldata } from '../../../gateway/orders/relay.ts';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../../workers/eip712/types.ts';
import { cancelOrder, placeOrder, random, signHash, type Random } from '../../workers/helpers/fixtures.ts';

const KEY = keccak256(toBytes('abi-encoder-test'));
const viem = (functionName: string, args: readonly unknown[]): Hex => encodeFunctionData({ abi: orderBookAbi, functionName, args } as never);

/** A 65-byte signature, sometimes uppercase hex, sometimes another length (viem copies bytes as given). */
function signature(r: Random): Hex {
  const sig = signHash(keccak256(toBytes(String(r.u32()))), KEY);
  switch (r.int(6)) {
    case 0: return `0x${sig.slice(2).toUpperCase()}` as Hex;
    case 1: return sig.slice(0, 130) as Hex; // 64 bytes
    case 2: return `${sig}${sig.slice(2, 2 + 2 * r.int(40))}` as Hex; // 65 to 104 bytes
    case 3: return '0x';
    default: return sig;
  }
}

const signedPlace = (r: Random) => ({ message: placeOrder(r), signature: signature(r) });
const signedCancel = (r: Random) => ({ message: cancelOrder(r), signature: signature(r) });
const some = <T>(r: Random, make: (r: Random) => T): T[] => Array.from({ length: 1 + r.int(50) }, () => make(r));

t.test('every order book relay call equals viem encodeFunctionData', async (t) => {
  const r = random(7);
  let checked = 0;
  for (let i = 0; i < 300; i++) {
    const p = signedPlace(r);
    const c = signedCancel(r);
    t.equal(placeCalldata(p), viem('placeOrderSigned', [p.message, p.signature]));
    t.equal(replaceCalldata(c, p), viem('replaceOrderSigned', [c.message, c.signature, p.message, p.signature]));
    checked += 2;
    if (i % 10 !== 0) continue;
    const places = some(r, signedPlace);
    const cancels = some(r, signedCancel);
    const pairs = cancels.map((cancel) => ({ cancel, place: signedPlace(r) }));
    t.equal(placeBatchCalldata(places), viem('batchPlaceOrders', [places.map((x) => x.message), places.map((x) => x.signature)]), `${places.length} places`);
    t.equal(cancelBatchCalldata(cancels), viem('batchCancelOrders', [cancels.map((x) => x.message), cancels.map((x) => x.signature)]), `${cancels.length} cancels`);
    t.equal(
      replaceBatchCalldata(pairs),
      viem('batchReplaceOrders', [pairs.map((x) => x.cancel.message), pairs.map((x) => x.cancel.signature), pairs.map((x) => x.place.message), pairs.map((x) => x.place.signature)]),
      `${pairs.length} replacements`,
    );
    checked += 3;
  }
  t.equal(checked, 690, "calls compared");
});

t.test('empty arrays encode as viem encodes them', async (t) => {
  const empty = callEncoder(orderBookAbi, 'batchPlaceOrders', '0x12345678');
  t.equal(empty([[], []]), `0x12345678${viem('batchPlaceOrders', [[], []]).slice(10)}`);
});

t.test('values viem refuses are refused', async (t) => {
  const r = random(11);
  const base = placeOrder(r);
  const sig = signHash(keccak256(toBytes('x')), KEY);
  const bad: [string, PlaceOrderMessage][] = [
    ['tick above uint32', { ...base, tick: 2 ** 32 }],
    ['negative size', { ...base, size: -1n }],
    ['size above uint128', { ...base, size: 1n << 128n }],
    ['nonce above uint256', { ...base, nonce: 1n << 256n }],
    ['short seriesId', { ...base, seriesId: '0x1234' }],
    ['isBuy not a boolean', { ...base, isBuy: 1 as unknown as boolean }],
  ];
  for (const [what, message] of bad) {
    t.throws(() => viem('placeOrderSigned', [message, sig]), `viem: ${what}`);
    t.throws(() => placeCalldata({ message, signature: sig }), `ours: ${what}`);
  }
  const cancel: CancelOrderMessage = { ...cancelOrder(r), deadline: -5n };
  t.throws(() => cancelBatchCalldata([{ message: cancel, signature: sig }]));
  t.throws(() => callEncoder(orderBookAbi, 'noSuchFunction', '0x00000000'), /no function/);
});
