/**
 * The settlement stream in TypeScript: the encoder the relayer writes batches with (the kinds in
 * itemKinds.ts, the decoder tests, alerts and the auditor read them with in itemsDecode.ts), and
 * the batch hashes, exactly docs/chain.md "The settlement stream". Items are packed big-endian into one growable buffer, written in
 * place; every field is range-checked and a value outside its field throws a RangeError naming
 * it (the relayer turns that into an alert, never into a wrong item).
 */
import { decodeErrorResult, toFunctionSelector, type Abi, type Address, type Hex } from 'viem';
import { keccak256Into } from '../engine/domain/keccak256.ts';
import { hexOf, writeHex, writeInt, writeSmall, writeUint } from './hexBytes.ts';
import { SETTLE_GAS } from './gasModel.ts';
import { errorAbi } from './artifacts.ts';
import { ItemKind, type SignedFill, type SignedOrder, type SignedQuote } from './itemKinds.ts';

export { ITEM_LENGTH, ItemKind, type ItemKindName, type SignedFill, type SignedOrder, type SignedQuote } from './itemKinds.ts';
export { decodeItems, type DecodedItem } from './itemsDecode.ts';


const MAX_ORDERS = 0x10000;

/**
 * One batch's items. `order()` declares a signed order once per batch (an ORDER item) and
 * returns its number, which fills name; every other method writes one item.
 */
export class BatchWriter {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  private len = 0;
  private orderNumbers = new Map<string, number>();
  private itemCount = 0;
  private fillCount = 0;
  private executionGas = 0;
  private scanned = 0;
  private zeroBytes = 0;

  /** Items written so far, ORDER declarations not counted (the unit of journalPos's itemCount). */
  get items(): number {
    return this.itemCount;
  }

  /** FILL, LIQUIDATION_FILL, FUND_FILL and RFQ_FILL items written so far. */
  get fills(): number {
    return this.fillCount;
  }

  get byteLength(): number {
    return this.len;
  }

  /** The orders declared so far. */
  get orders(): number {
    return this.orderNumbers.size;
  }

  /**
   * The gas model's bound on settle() for what is written (chain/gasModel.ts): the
   * transaction's base and calldata cost plus each item's execution, counted for cold state.
   */
  get gas(): number {
    for (let i = this.scanned; i < this.len; i++) if (this.buf[i] === 0) this.zeroBytes++;
    this.scanned = this.len;
    const standard = SETTLE_GAS.base + this.executionGas + SETTLE_GAS.calldataGas(this.len, this.zeroBytes);
    return Math.max(standard, SETTLE_GAS.floorGas(this.len, this.zeroBytes));
  }

  /** The order's number in this batch, declaring it (an ORDER item) the first time `orderId` is seen since reset(). */
  order(orderId: Hex, o: SignedOrder): number {
    const key = orderId.toLowerCase();
    const known = this.orderNumbers.get(key);
    if (known !== undefined) return known;
    if (key.length !== 66) throw new RangeError('orderId: expected 32 bytes of hex');
    if (this.orderNumbers.size >= MAX_ORDERS) throw new RangeError(`orderId: a batch declares at most ${MAX_ORDERS} orders`);
    const at = this.begin(ItemKind.ORDER, 215);
    const b = this.buf;
    const v = this.view;
    writeHex(b, at + 1, o.owner, 20, 'owner');
    writeHex(b, at + 21, o.seriesId, 32, 'seriesId');
    writeUint(v, at + 53, o.portfolioId, 8, 'portfolioId');
    b[at + 61] = bool(o.isBuy, 'isBuy');
    writeSmall(v, at + 62, o.tick, 4, 'tick');
    writeUint(v, at + 66, o.size, 16, 'size');
    writeSmall(v, at + 82, o.expiry, 4, 'expiry');
    writeUint(v, at + 86, o.nonce, 32, 'nonce');
    writeUint(v, at + 118, o.deadline, 32, 'deadline');
    writeSignature(b, at + 150, o.signature, 'signature');
    const index = this.orderNumbers.size;
    this.orderNumbers.set(key, index);
    this.end(215, SETTLE_GAS.item.ORDER, 'order');
    return index;
  }

  fill(maker: number, taker: number, size: bigint, makerFee: bigint, takerFee: bigint): void {
    const at = this.begin(ItemKind.FILL, 53);
    this.orderIndex(at + 1, maker, 'maker');
    this.orderIndex(at + 3, taker, 'taker');
    writeUint(this.view, at + 5, size, 16, 'size');
    writeInt(this.view, at + 21, makerFee, 16, 'makerFee');
    writeInt(this.view, at + 37, takerFee, 16, 'takerFee');
    this.end(53, SETTLE_GAS.item.FILL, 'fill');
  }

  liquidationFill(book: number, owner: Address, portfolioId: bigint, size: bigint): void {
    const at = this.begin(ItemKind.LIQUIDATION_FILL, 47);
    this.orderIndex(at + 1, book, 'book');
    writeHex(this.buf, at + 3, owner, 20, 'owner');
    writeUint(this.view, at + 23, portfolioId, 8, 'portfolioId');
    writeUint(this.view, at + 31, size, 16, 'size');
    this.end(47, SETTLE_GAS.item.LIQUIDATION_FILL, 'fill');
  }

  fundFill(owner: Address, portfolioId: bigint, seriesId: Hex, isBuy: boolean, size: bigint, price: bigint): void {
    const at = this.begin(ItemKind.FUND_FILL, 94);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, portfolioId, 8, 'portfolioId');
    writeHex(this.buf, at + 29, seriesId, 32, 'seriesId');
    this.buf[at + 61] = bool(isBuy, 'isBuy');
    writeUint(this.view, at + 62, size, 16, 'size');
    writeUint(this.view, at + 78, price, 16, 'price');
    this.end(94, SETTLE_GAS.item.FUND_FILL, 'fill');
  }

  rfqFill(quote: SignedQuote, fill: SignedFill, makerFee: bigint, takerFee: bigint): void {
    const at = this.begin(ItemKind.RFQ_FILL, 609);
    const b = this.buf;
    const v = this.view;
    writeHex(b, at + 1, quote.mmm, 20, 'quote.mmm');
    writeHex(b, at + 21, quote.taker, 20, 'quote.taker');
    writeHex(b, at + 41, quote.seriesId, 32, 'quote.seriesId');
    b[at + 73] = bool(quote.takerIsBuying, 'quote.takerIsBuying');
    writeUint(v, at + 74, quote.price, 32, 'quote.price');
    writeUint(v, at + 106, quote.size, 32, 'quote.size');
    writeUint(v, at + 138, quote.nonce, 32, 'quote.nonce');
    writeUint(v, at + 170, quote.quoteExpiry, 32, 'quote.quoteExpiry');
    writeHex(b, at + 202, quote.pairId, 32, 'quote.pairId');
    writeUint(v, at + 234, quote.strike, 32, 'quote.strike');
    writeUint(v, at + 266, quote.optionExpiry, 32, 'quote.optionExpiry');
    b[at + 298] = bool(quote.isCall, 'quote.isCall');
    writeSignature(b, at + 299, quote.signature, 'quote.signature');
    writeHex(b, at + 364, fill.taker, 20, 'fill.taker');
    writeUint(v, at + 384, fill.portfolioId, 32, 'fill.portfolioId');
    writeUint(v, at + 416, fill.fillSize, 32, 'fill.fillSize');
    writeUint(v, at + 448, fill.nonce, 32, 'fill.nonce');
    writeUint(v, at + 480, fill.deadline, 32, 'fill.deadline');
    writeSignature(b, at + 512, fill.signature, 'fill.signature');
    writeInt(v, at + 577, makerFee, 16, 'makerFee');
    writeInt(v, at + 593, takerFee, 16, 'takerFee');
    this.end(609, SETTLE_GAS.item.RFQ_FILL, 'fill');
  }

  mmmNonce(mmm: Address, nonce: bigint): void {
    const at = this.begin(ItemKind.MMM_NONCE, 53);
    writeHex(this.buf, at + 1, mmm, 20, 'mmm');
    writeUint(this.view, at + 21, nonce, 32, 'nonce');
    this.end(53, SETTLE_GAS.item.MMM_NONCE);
  }

  nonceFloor(owner: Address, floor: bigint): void {
    const at = this.begin(ItemKind.NONCE_FLOOR, 53);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, floor, 32, 'floor');
    this.end(53, SETTLE_GAS.item.NONCE_FLOOR);
  }

  deposit(depositId: bigint): void {
    const at = this.begin(ItemKind.DEPOSIT, 9);
    writeUint(this.view, at + 1, depositId, 8, 'depositId');
    this.end(9, SETTLE_GAS.item.DEPOSIT);
  }

  depositRefund(depositId: bigint): void {
    const at = this.begin(ItemKind.DEPOSIT_REFUND, 9);
    writeUint(this.view, at + 1, depositId, 8, 'depositId');
    this.end(9, SETTLE_GAS.item.DEPOSIT_REFUND);
  }

  mint(owner: Address, portfolioId: bigint, amount: bigint): void {
    this.account(ItemKind.MINT, owner, portfolioId, amount, SETTLE_GAS.item.MINT);
  }

  withdraw(owner: Address, portfolioId: bigint, amount: bigint, withdrawalId: bigint): void {
    const at = this.begin(ItemKind.WITHDRAW, 53);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, portfolioId, 8, 'portfolioId');
    writeUint(this.view, at + 29, amount, 16, 'amount');
    writeUint(this.view, at + 45, withdrawalId, 8, 'withdrawalId');
    this.end(53, SETTLE_GAS.item.WITHDRAW);
  }

  transfer(owner: Address, from: bigint, to: bigint, amount: bigint): void {
    const at = this.begin(ItemKind.TRANSFER, 53);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, from, 8, 'fromPortfolioId');
    writeUint(this.view, at + 29, to, 8, 'toPortfolioId');
    writeUint(this.view, at + 37, amount, 16, 'amount');
    this.end(53, SETTLE_GAS.item.TRANSFER);
  }

  liquidationFee(owner: Address, portfolioId: bigint, amount: bigint): void {
    this.account(ItemKind.LIQUIDATION_FEE, owner, portfolioId, amount, SETTLE_GAS.item.LIQUIDATION_FEE);
  }

  deficit(owner: Address, portfolioId: bigint, fundPaid: bigint, badDebt: bigint): void {
    const at = this.begin(ItemKind.DEFICIT, 61);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, portfolioId, 8, 'portfolioId');
    writeUint(this.view, at + 29, fundPaid, 16, 'fundPaid');
    writeUint(this.view, at + 45, badDebt, 16, 'badDebt');
    this.end(61, SETTLE_GAS.item.DEFICIT);
  }

  rebate(referrer: Address, amount: bigint): void {
    const at = this.begin(ItemKind.REBATE, 37);
    writeHex(this.buf, at + 1, referrer, 20, 'referrer');
    writeUint(this.view, at + 21, amount, 16, 'amount');
    this.end(37, SETTLE_GAS.item.REBATE);
  }

  /** A forced-withdrawal request taken in: `paid` of it to its owner (0: refused). */
  forcedWithdraw(requestId: bigint, paid: bigint): void {
    const at = this.begin(ItemKind.FORCED_WITHDRAW, 25);
    writeUint(this.view, at + 1, requestId, 8, 'requestId');
    writeUint(this.view, at + 9, paid, 16, 'paid');
    this.end(25, SETTLE_GAS.item.FORCED_WITHDRAW);
  }

  pair(pairId: Hex, tickDecimals: number): void {
    const at = this.begin(ItemKind.PAIR, 34);
    writeHex(this.buf, at + 1, pairId, 32, 'pairId');
    if (!Number.isInteger(tickDecimals) || tickDecimals < 0 || tickDecimals > 18) throw new RangeError(`tickDecimals: not an integer in [0, 18] (${tickDecimals})`);
    this.buf[at + 33] = tickDecimals;
    this.end(34, SETTLE_GAS.item.PAIR);
  }

  series(pairId: Hex, strike: bigint, expiry: number, isCall: boolean): void {
    const at = this.begin(ItemKind.SERIES, 74);
    writeHex(this.buf, at + 1, pairId, 32, 'pairId');
    writeUint(this.view, at + 33, strike, 32, 'strike');
    writeSmall(this.view, at + 65, expiry, 8, 'expiry');
    this.buf[at + 73] = bool(isCall, 'isCall');
    this.end(74, SETTLE_GAS.item.SERIES);
  }

  mmm(account: Address, isMmm: boolean): void {
    const at = this.begin(ItemKind.MMM, 22);
    writeHex(this.buf, at + 1, account, 20, 'account');
    this.buf[at + 21] = bool(isMmm, 'isMmm');
    this.end(22, SETTLE_GAS.item.MMM);
  }

  settlementPrice(pairId: Hex, expiry: number, price: bigint, signature: Hex): void {
    const at = this.begin(ItemKind.SETTLEMENT_PRICE, 138);
    writeHex(this.buf, at + 1, pairId, 32, 'pairId');
    writeSmall(this.view, at + 33, expiry, 8, 'expiry');
    writeUint(this.view, at + 41, price, 32, 'price');
    writeSignature(this.buf, at + 73, signature, 'signature');
    this.end(138, SETTLE_GAS.item.SETTLEMENT_PRICE);
  }

  seriesSettled(seriesId: Hex): void {
    const at = this.begin(ItemKind.SERIES_SETTLED, 33);
    writeHex(this.buf, at + 1, seriesId, 32, 'seriesId');
    this.end(33, SETTLE_GAS.item.SERIES_SETTLED);
  }

  settlePosition(owner: Address, portfolioId: bigint, seriesId: Hex): void {
    const at = this.begin(ItemKind.SETTLE_POSITION, 61);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, portfolioId, 8, 'portfolioId');
    writeHex(this.buf, at + 29, seriesId, 32, 'seriesId');
    this.end(61, SETTLE_GAS.item.SETTLE_POSITION);
  }

  /** The packed items written since reset() (a copy). */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }

  reset(): void {
    this.len = 0;
    this.orderNumbers.clear();
    this.itemCount = 0;
    this.fillCount = 0;
    this.executionGas = 0;
    this.scanned = 0;
    this.zeroBytes = 0;
  }

  private account(kind: number, owner: Address, portfolioId: bigint, amount: bigint, gas: number): void {
    const at = this.begin(kind, 45);
    writeHex(this.buf, at + 1, owner, 20, 'owner');
    writeUint(this.view, at + 21, portfolioId, 8, 'portfolioId');
    writeUint(this.view, at + 29, amount, 16, 'amount');
    this.end(45, gas);
  }

  private orderIndex(at: number, index: number, field: string): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.orderNumbers.size) throw new RangeError(`${field}: ${index} is not an order declared in this batch`);
    this.view.setUint16(at, index);
  }

  /** Room for an item of `length` bytes at the end; its kind written. Committed by end(). */
  private begin(kind: number, length: number): number {
    const at = this.len;
    if (at + length > this.buf.length) {
      let size = this.buf.length * 2;
      while (size < at + length) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.buf.subarray(0, at));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    this.buf.fill(0, at, at + length);
    this.buf[at] = kind;
    return at;
  }

  /** Commits the item begun last: a field that threw left it uncommitted, so nothing is written. */
  private end(length: number, gas: number, counts: 'order' | 'item' | 'fill' = 'item'): void {
    this.len += length;
    this.executionGas += gas;
    if (counts !== 'order') this.itemCount++;
    if (counts === 'fill') this.fillCount++;
  }
}

function bool(v: boolean, field: string): number {
  if (typeof v !== 'boolean') throw new RangeError(`${field}: expected a boolean`);
  return v ? 1 : 0;
}

/** A 65-byte r || s || v signature with v 27 or 28, as the contracts take it (docs/signatures.md). */
function writeSignature(out: Uint8Array, at: number, signature: Hex, field: string): void {
  writeHex(out, at, signature, 65, field);
  const v = out[at + 64];
  if (v !== 27 && v !== 28) throw new RangeError(`${field}: v must be 27 or 28 (got ${v})`);
}


// ---- the batch's hashes and call ----

const WORDS = new Uint8Array(192);
const WORDS_VIEW = new DataView(WORDS.buffer);

const DIGEST = new Uint8Array(32);

/** Keccak-256 by the engine's allocation-free implementation (engine/domain/keccak256.ts, checked against viem there). */
function keccak(bytes: Uint8Array): Hex {
  keccak256Into(bytes, 0, bytes.length, DIGEST, 0);
  return hexOf(DIGEST);
}

function words(...values: (bigint | Hex)[]): Uint8Array {
  const out = WORDS.subarray(0, 32 * values.length);
  values.forEach((v, i) => {
    if (typeof v === 'bigint') writeUint(WORDS_VIEW, 32 * i, v, 32, `word ${i}`);
    else writeHex(WORDS, 32 * i, v, 32, `word ${i}`);
  });
  return out;
}

/**
 * What `settle` says of a batch beside its items (docs/chain.md "Batches"): its seq, its match
 * time, where in the journal it ends, and the engine's state hash after journal command
 * `stateSeq` (the batch's last command or a later one: the auditor's check, docs/chain.md "The audit").
 */
export type BatchHeader = { readonly seq: bigint; readonly matchTime: bigint; readonly journalPos: bigint; readonly stateSeq: bigint; readonly stateHash: Hex };

/** `keccak256(abi.encode(seq, matchTime, journalPos, stateSeq, stateHash, keccak256(items)))`. */
export function batchHash(h: BatchHeader, items: Uint8Array): Hex {
  const itemsHash = keccak(items);
  return keccak(words(h.seq, h.matchTime, h.journalPos, h.stateSeq, h.stateHash, itemsHash));
}

/** `keccak256(abi.encode(prev, batchHash))`: the order book's settleHash after a batch. */
export function nextSettleHash(prev: Hex, batch: Hex): Hex {
  return keccak(words(prev, batch));
}

/** journalSeq x 2^32 + itemCount: where in the journal a batch ends (docs/chain.md). */
export function journalPosOf(journalSeq: number, itemCount: number): bigint {
  if (!Number.isSafeInteger(journalSeq) || journalSeq < 0) throw new RangeError(`journalSeq: not a non-negative integer (${journalSeq})`);
  if (!Number.isInteger(itemCount) || itemCount < 0 || itemCount >= 2 ** 32) throw new RangeError(`itemCount: not an integer in [0, 2^32) (${itemCount})`);
  return (BigInt(journalSeq) << 32n) + BigInt(itemCount);
}

const SETTLE_SELECTOR = toFunctionSelector('settle(uint256,uint256,uint256,uint256,bytes32,bytes)');

/** The calldata of `orderBook.settle(seq, matchTime, journalPos, stateSeq, stateHash, items)`. */
export function settleCalldata(h: BatchHeader, items: Uint8Array): Hex {
  const padded = Math.ceil(items.length / 32) * 32;
  const out = new Uint8Array(4 + 32 * 7 + padded);
  const view = new DataView(out.buffer);
  writeHex(out, 0, SETTLE_SELECTOR, 4, 'selector');
  writeUint(view, 4, h.seq, 32, 'seq');
  writeUint(view, 36, h.matchTime, 32, 'matchTime');
  writeUint(view, 68, h.journalPos, 32, 'journalPos');
  writeUint(view, 100, h.stateSeq, 32, 'stateSeq');
  writeHex(out, 132, h.stateHash, 32, 'stateHash');
  writeUint(view, 164, 192n, 32, 'offset');
  writeUint(view, 196, BigInt(items.length), 32, 'length');
  out.set(items, 228);
  return hexOf(out);
}

/** The header and items of `settle` calldata (the auditor reads the chain's batches so); null when it is not a settle call. */
export function decodeSettleCalldata(data: Hex): { header: BatchHeader; items: Uint8Array } | null {
  const bytes = Buffer.from(data.slice(2), 'hex');
  if (bytes.length < 228 || `0x${bytes.subarray(0, 4).toString('hex')}` !== SETTLE_SELECTOR) return null;
  const word = (at: number) => BigInt(`0x${bytes.subarray(at, at + 32).toString('hex')}`);
  const length = Number(word(196));
  if (word(164) !== 192n || 228 + length > bytes.length) return null;
  return {
    header: { seq: word(4), matchTime: word(36), journalPos: word(68), stateSeq: word(100), stateHash: `0x${bytes.subarray(132, 164).toString('hex')}` as Hex },
    items: new Uint8Array(bytes.subarray(228, 228 + length)),
  };
}

/** A revert of settle() decoded with the contracts' errors: its name, its arguments by name, the item it names. */
export function decodeSettleError(data: Hex): { name: string; args: Record<string, unknown>; item: number | null } | null {
  let decoded;
  try {
    decoded = decodeErrorResult({ abi: errorAbi as Abi, data });
  } catch {
    return null;
  }
  const def = (errorAbi as unknown as readonly { type: string; name?: string; inputs?: readonly { name: string }[] }[]).find((e) => e.type === 'error' && e.name === decoded.errorName);
  const args: Record<string, unknown> = {};
  const values = (decoded.args ?? []) as readonly unknown[];
  (def?.inputs ?? []).forEach((input, i) => {
    args[input.name] = values[i];
  });
  const item = typeof args.item === 'bigint' ? Number(args.item) : null;
  return { name: decoded.errorName, args, item };
}
