/**
 * The word-by-word encoder of the single-order relay calls gives viem's bytes exactly, for
 * messages across each field's range, and declines (null) what its types do not take, so that
 * the caller's viem fallback names the error.
 */
import t from 'tap';
import { decodeFunctionData, encodeFunctionData, prepareEncodeFunctionData, type Hex } from 'viem';
import { orderBookAbi } from '../../../gateway/abi.ts';
import { placeCalldata, replaceCalldata } from '../../../gateway/orders/relay.ts';
import { placeOrderSignedWords, replaceOrderSignedWords } from '../../../gateway/orders/relayWords.ts';
import type { CancelOrderMessage, PlaceOrderMessage } from '../../../workers/eip712/types.ts';

const place = prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'placeOrderSigned' });
const replace = prepareEncodeFunctionData({ abi: orderBookAbi, functionName: 'replaceOrderSigned' });

// A deterministic generator (xorshift): the same messages on every run.
let state = 0x2545f491;
const next = (): number => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
};
const hex = (bytes: number): string => Array.from({ length: bytes }, () => (next() & 0xff).toString(16).padStart(2, '0')).join('');
const uint = (bits: number): bigint => {
  const edge = next() % 4;
  if (edge === 0) return 0n;
  if (edge === 1) return (1n << BigInt(bits)) - 1n;
  return BigInt(`0x${hex(Math.ceil((next() % bits) / 8) || 1)}`) & ((1n << BigInt(bits)) - 1n);
};
const u32 = (): number => [0, 0xffffffff, next()][next() % 3]!;

const placeMessage = (): PlaceOrderMessage => ({
  seriesId: `0x${hex(32)}` as Hex,
  portfolioId: uint(256),
  isBuy: next() % 2 === 0,
  tick: u32(),
  size: uint(128),
  expiry: u32(),
  nonce: uint(256),
  deadline: uint(256),
});
const cancelMessage = (): CancelOrderMessage => ({ orderId: `0x${hex(32)}` as Hex, nonce: uint(256), deadline: uint(256) });
const signature = (): Hex => `0x${hex(65)}` as Hex;

t.test('placeOrderSigned: the bytes viem gives, and they decode to the message', async (t) => {
  let same = 0;
  for (let i = 0; i < 300; i++) {
    const m = placeMessage();
    const s = signature();
    const ours = placeOrderSignedWords(place.functionName, m, s);
    const viem = encodeFunctionData({ abi: orderBookAbi, functionName: 'placeOrderSigned', args: [m, s] });
    if (ours === viem) same++;
    else t.fail(`message ${i} differs`, { m, ours, viem });
  }
  t.equal(same, 300, 'all 300 messages');
  // Hex keeps its case, as viem's does.
  const upper = { ...placeMessage(), seriesId: `0x${'AB'.repeat(32)}` as Hex };
  const upperSig = `0x${'CD'.repeat(65)}` as Hex;
  t.equal(placeCalldata({ message: upper, signature: upperSig }), encodeFunctionData({ abi: orderBookAbi, functionName: 'placeOrderSigned', args: [upper, upperSig] }), 'upper-case hex');
  const m = placeMessage();
  const s = signature();
  const decoded = decodeFunctionData({ abi: orderBookAbi, data: placeCalldata({ message: m, signature: s }) });
  t.same(decoded.args, [m, s.toLowerCase()]);
});

t.test('replaceOrderSigned: the bytes viem gives', async (t) => {
  let same = 0;
  for (let i = 0; i < 300; i++) {
    const c = cancelMessage();
    const p = placeMessage();
    const cs = signature();
    const ps = signature();
    const ours = replaceOrderSignedWords(replace.functionName, c, cs, p, ps);
    const viem = encodeFunctionData({ abi: orderBookAbi, functionName: 'replaceOrderSigned', args: [c, cs, p, ps] });
    if (ours === viem) same++;
    else t.fail(`message ${i} differs`, { c, p, ours, viem });
  }
  t.equal(same, 300, 'all 300 pairs');
  t.equal(replaceCalldata({ message: cancelMessage(), signature: signature() }, { message: placeMessage(), signature: signature() }).length, 2 + 8 + 2 * (13 + 8) * 32);
});

t.test('what its types do not take is declined, and the viem path names it', async (t) => {
  const m = placeMessage();
  const s = signature();
  const bad: [string, PlaceOrderMessage, string][] = [
    ['size over uint128', { ...m, size: 1n << 128n }, s],
    ['negative nonce', { ...m, nonce: -1n }, s],
    ['tick over uint32', { ...m, tick: 2 ** 32 }, s],
    ['fractional expiry', { ...m, expiry: 1.5 }, s],
    ['short series id', { ...m, seriesId: '0x1234' as Hex }, s],
    ['64-byte signature', m, `0x${'ab'.repeat(64)}`],
  ];
  for (const [what, msg, sig] of bad) {
    t.equal(placeOrderSignedWords(place.functionName, msg, sig), null, what);
    if (what !== '64-byte signature') t.throws(() => placeCalldata({ message: msg, signature: sig as Hex }), `${what}: viem refuses it`);
  }
  // A signature of another length is valid ABI: viem encodes it, and it decodes back.
  const odd = placeCalldata({ message: m, signature: `0x${'ab'.repeat(64)}` as Hex });
  t.equal(decodeFunctionData({ abi: orderBookAbi, data: odd }).args[1], `0x${'ab'.repeat(64)}`);
});
