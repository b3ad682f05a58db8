/**
 * chain/items.ts without a chain: every kind encoded and decoded back, the range checks (each a
 * RangeError naming its field, nothing written), the hashes and the calldata against viem.
 */
import t from 'tap';
import { encodeAbiParameters, encodeErrorResult, encodeFunctionData, keccak256, toHex, type Abi, type Address, type Hex } from 'viem';
import { BatchWriter, batchHash, decodeItems, decodeSettleCalldata, decodeSettleError, ITEM_LENGTH, journalPosOf, nextSettleHash, settleCalldata, type SignedOrder, type SignedQuote, type SignedFill } from '../../chain/items.ts';
import { errorAbi, orderBookAbi } from '../../chain/artifacts.ts';

const A = '0x1234567890abcdef1234567890abcdef12345678' as Address;
const B = '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd' as Address;
const H = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
const SIG = (v: number): Hex => `0x${'11'.repeat(32)}${'22'.repeat(32)}${v.toString(16)}`;
const U128 = (1n << 128n) - 1n;
const U256 = (1n << 256n) - 1n;

const order = (over: Partial<SignedOrder> = {}): SignedOrder => ({
  owner: A, seriesId: H(7), portfolioId: 3n, isBuy: true, tick: 4_294_967_295, size: U128, expiry: 1_800_000_000, nonce: U256, deadline: 12345n, signature: SIG(27), ...over,
});
const quote: SignedQuote = {
  mmm: A, taker: B, seriesId: H(9), takerIsBuying: false, price: U256, size: 5n, nonce: 6n, quoteExpiry: 7n, pairId: H(8), strike: 9n, optionExpiry: 10n, isCall: true, signature: SIG(28),
};
const fillQ: SignedFill = { taker: B, portfolioId: 2n, fillSize: 3n, nonce: 4n, deadline: 5n, signature: SIG(27) };

t.test('every kind round-trips, with its length', async (t) => {
  const w = new BatchWriter();
  const lengths: number[] = [];
  const track = (f: () => void): void => {
    const before = w.byteLength;
    f();
    lengths.push(w.byteLength - before);
  };
  let m = 0;
  let k = 0;
  track(() => (m = w.order(H(1), order())));
  track(() => (k = w.order(H(2), order({ owner: B, isBuy: false, tick: 0, size: 1n, nonce: 0n }))));
  t.equal(w.order(H(1), order()), m, 'an order seen again is not declared again');
  track(() => w.fill(m, k, U128, -(1n << 127n), (1n << 127n) - 1n));
  track(() => w.liquidationFill(k, B, 9n, 5n));
  track(() => w.fundFill(A, 1n, H(5), true, 2n, U128));
  track(() => w.rfqFill(quote, fillQ, -3n, 4n));
  track(() => w.mmmNonce(A, U256));
  track(() => w.deposit((1n << 64n) - 1n));
  track(() => w.depositRefund(1n));
  track(() => w.mint(A, 2n, U128));
  track(() => w.withdraw(B, 3n, 4n, 5n));
  track(() => w.transfer(A, 1n, 2n, 3n));
  track(() => w.liquidationFee(A, 1n, 7n));
  track(() => w.deficit(B, 1n, 2n, 3n));
  track(() => w.rebate(A, 8n));
  track(() => w.pair(H(3), 18));
  track(() => w.series(H(3), U256, 2 ** 53 - 1, false));
  track(() => w.mmm(B, true));
  track(() => w.settlementPrice(H(3), 1_800_000_000, 99n, SIG(28)));
  track(() => w.seriesSettled(H(4)));
  track(() => w.settlePosition(A, 6n, H(4)));
  track(() => w.nonceFloor(B, U256));
  track(() => w.forcedWithdraw((1n << 64n) - 1n, U128));
  t.equal(w.items, 21, 'ORDER declarations are not counted');
  t.equal(w.fills, 4);
  t.equal(w.orders, 2);
  const items = decodeItems(w.bytes());
  t.same(items.map((i) => i.kind), ['ORDER', 'ORDER', 'FILL', 'LIQUIDATION_FILL', 'FUND_FILL', 'RFQ_FILL', 'MMM_NONCE', 'DEPOSIT', 'DEPOSIT_REFUND', 'MINT', 'WITHDRAW', 'TRANSFER', 'LIQUIDATION_FEE', 'DEFICIT', 'REBATE', 'PAIR', 'SERIES', 'MMM', 'SETTLEMENT_PRICE', 'SERIES_SETTLED', 'SETTLE_POSITION', 'NONCE_FLOOR', 'FORCED_WITHDRAW']);
  t.same(lengths, items.map((i) => ITEM_LENGTH[i.kind]), 'each item has its kind\'s length');
  const [o1, o2, fill, liq, fund, rfq, nonce, dep, , mint, wd, tr, , def, reb, pair, series, mmm, price, , settle, floor, forced] = items;
  t.match(o1, { kind: 'ORDER', order: 0, owner: A, seriesId: H(7), portfolioId: 3n, isBuy: true, tick: 4_294_967_295, size: U128, expiry: 1_800_000_000, nonce: U256, deadline: 12345n, signature: SIG(27) });
  t.match(o2, { order: 1, owner: B, isBuy: false, tick: 0, size: 1n, nonce: 0n });
  t.match(fill, { maker: 0, taker: 1, size: U128, makerFee: -(1n << 127n), takerFee: (1n << 127n) - 1n });
  t.match(liq, { book: 1, owner: B, portfolioId: 9n, size: 5n });
  t.match(fund, { owner: A, portfolioId: 1n, seriesId: H(5), isBuy: true, size: 2n, price: U128 });
  t.same((rfq as { quote: unknown }).quote, quote);
  t.same((rfq as { fill: unknown }).fill, fillQ);
  t.match(rfq, { makerFee: -3n, takerFee: 4n });
  t.match(nonce, { mmm: A, nonce: U256 });
  t.match(dep, { depositId: (1n << 64n) - 1n });
  t.match(mint, { owner: A, portfolioId: 2n, amount: U128 });
  t.match(wd, { owner: B, portfolioId: 3n, amount: 4n, withdrawalId: 5n });
  t.match(tr, { owner: A, fromPortfolioId: 1n, toPortfolioId: 2n, amount: 3n });
  t.match(def, { owner: B, portfolioId: 1n, fundPaid: 2n, badDebt: 3n });
  t.match(reb, { referrer: A, amount: 8n });
  t.match(floor, { kind: 'NONCE_FLOOR', owner: B, floor: U256 });
  t.match(forced, { kind: 'FORCED_WITHDRAW', requestId: (1n << 64n) - 1n, paid: U128 });
  t.match(pair, { pairId: H(3), tickDecimals: 18 });
  t.match(series, { pairId: H(3), strike: U256, expiry: 2 ** 53 - 1, isCall: false });
  t.match(mmm, { account: B, isMmm: true });
  t.match(price, { pairId: H(3), expiry: 1_800_000_000, price: 99n, signature: SIG(28) });
  t.match(settle, { owner: A, portfolioId: 6n, seriesId: H(4) });
  w.reset();
  t.equal(w.byteLength, 0);
  t.equal(w.items, 0);
  t.equal(w.order(H(1), order()), 0, 'reset() forgets the declared orders');
});

t.test('a value outside its field throws a RangeError naming it, and writes nothing', async (t) => {
  const w = new BatchWriter();
  const m = w.order(H(1), order());
  const k = w.order(H(2), order({ isBuy: false }));
  const cases: [string, () => void][] = [
    ['size', () => w.fill(m, k, U128 + 1n, 0n, 0n)],
    ['size', () => w.fill(m, k, -1n, 0n, 0n)],
    ['makerFee', () => w.fill(m, k, 1n, 1n << 127n, 0n)],
    ['takerFee', () => w.fill(m, k, 1n, 0n, -(1n << 127n) - 1n)],
    ['taker', () => w.fill(m, 2, 1n, 0n, 0n)],
    ['maker', () => w.fill(-1, k, 1n, 0n, 0n)],
    ['book', () => w.liquidationFill(5, A, 1n, 1n)],
    ['tick', () => w.order(H(3), order({ tick: 2 ** 32 }))],
    ['tick', () => w.order(H(3), order({ tick: 1.5 }))],
    ['expiry', () => w.order(H(3), order({ expiry: -1 }))],
    ['portfolioId', () => w.order(H(3), order({ portfolioId: 1n << 64n }))],
    ['nonce', () => w.order(H(3), order({ nonce: U256 + 1n }))],
    ['signature', () => w.order(H(3), order({ signature: `0x${'11'.repeat(64)}` }))],
    ['signature', () => w.order(H(3), order({ signature: SIG(1) }))],
    ['signature', () => w.order(H(3), order({ signature: `0x${'zz'.repeat(64)}1b` as Hex }))],
    ['owner', () => w.order(H(3), order({ owner: '0x1234' as Address }))],
    ['seriesId', () => w.order(H(3), order({ seriesId: H(1).slice(0, 64) as Hex }))],
    ['isBuy', () => w.order(H(3), order({ isBuy: 1 as unknown as boolean }))],
    ['orderId', () => w.order('0x12', order())],
    ['quote.price', () => w.rfqFill({ ...quote, price: U256 + 1n }, fillQ, 0n, 0n)],
    ['fill.signature', () => w.rfqFill(quote, { ...fillQ, signature: SIG(29) }, 0n, 0n)],
    ['depositId', () => w.deposit(1n << 64n)],
    ['amount', () => w.withdraw(A, 1n, -5n, 1n)],
    ['withdrawalId', () => w.withdraw(A, 1n, 5n, 1n << 64n)],
    ['tickDecimals', () => w.pair(H(1), 19)],
    ['expiry', () => w.series(H(1), 1n, 2 ** 64, true)],
    ['price', () => w.settlementPrice(H(1), 1, U256 + 1n, SIG(27))],
  ];
  for (const [field, f] of cases) {
    const bytes = w.byteLength;
    const items = w.items;
    let thrown: unknown = null;
    try {
      f();
    } catch (e) {
      thrown = e;
    }
    t.ok(thrown instanceof RangeError && thrown.message.startsWith(`${field}:`), `${field}: ${String(thrown)}`);
    t.equal(w.byteLength, bytes, `${field}: nothing written`);
    t.equal(w.items, items);
  }
  t.equal(w.orders, 2, 'no order declared by a refused one');
});

t.test('hashes, journal positions and calldata as the contract computes them', async (t) => {
  const w = new BatchWriter();
  w.deposit(5n);
  w.mint(A, 1n, 2n);
  const items = w.bytes();
  const stateHash = keccak256(toHex('a state'));
  const header = { seq: 7n, matchTime: 1_700_000_000n, journalPos: journalPosOf(3, 2), stateSeq: 4n, stateHash };
  const expected = keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }], [7n, 1_700_000_000n, journalPosOf(3, 2), 4n, stateHash, keccak256(items)]));
  t.equal(batchHash(header, items), expected);
  t.equal(nextSettleHash(H(0), expected), keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [H(0), expected])));
  t.equal(journalPosOf(3, 2), 3n * 2n ** 32n + 2n);
  t.throws(() => journalPosOf(1, 2 ** 32), RangeError);
  t.throws(() => journalPosOf(-1, 0), RangeError);
  for (const bytes of [items, new Uint8Array(0), new Uint8Array(64).fill(7)]) {
    const h = { seq: 7n, matchTime: 8n, journalPos: 9n, stateSeq: 10n, stateHash };
    const data = settleCalldata(h, bytes);
    t.equal(data, encodeFunctionData({ abi: orderBookAbi, functionName: 'settle', args: [7n, 8n, 9n, 10n, stateHash, `0x${Buffer.from(bytes).toString('hex')}`] }));
    t.same(decodeSettleCalldata(data), { header: h, items: bytes }, 'decoded back');
  }
  t.equal(decodeSettleCalldata('0x12345678'), null, 'not a settle call');
});

t.test('decodeSettleError names the error, its arguments and the item', async (t) => {
  const data = encodeErrorResult({ abi: errorAbi as Abi, errorName: 'Overfilled', args: [4n, H(9), 10n, 8n] });
  t.same(decodeSettleError(data), { name: 'Overfilled', args: { item: 4n, orderId: H(9), filledAfter: 10n, signedSize: 8n }, item: 4 });
  const seq = encodeErrorResult({ abi: errorAbi as Abi, errorName: 'BadSeq', args: [2n, 5n] });
  t.same(decodeSettleError(seq), { name: 'BadSeq', args: { expected: 2n, given: 5n }, item: null });
  t.equal(decodeSettleError('0xdeadbeef'), null, 'an unknown selector');
  t.equal(decodeSettleError('0x'), null);
});

t.test('the gas model grows with what is written', async (t) => {
  const w = new BatchWriter();
  const empty = w.gas;
  const m = w.order(H(1), order());
  const k = w.order(H(2), order({ isBuy: false }));
  const orders = w.gas;
  w.fill(m, k, 1n, 0n, 0n);
  t.ok(orders > empty && w.gas > orders);
});
