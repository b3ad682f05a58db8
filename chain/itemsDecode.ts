/**
 * Reading a batch's items back (docs/chain.md "Items"): what tests, alerts and the auditor read
 * a settle() call's items with. The inverse of chain/items.ts BatchWriter, kind by kind.
 */
import type { Address, Hex } from 'viem';
import { hexOf, readInt, readUint } from './hexBytes.ts';
import { ITEM_LENGTH, KIND_NAME, type ItemKindName, type SignedFill, type SignedQuote } from './itemKinds.ts';

type Sig = { signature: Hex };
export type DecodedItem = { index: number; offset: number } & (
  | ({ kind: 'ORDER'; order: number; owner: Address; seriesId: Hex; portfolioId: bigint; isBuy: boolean; tick: number; size: bigint; expiry: number; nonce: bigint; deadline: bigint } & Sig)
  | { kind: 'FILL'; maker: number; taker: number; size: bigint; makerFee: bigint; takerFee: bigint }
  | { kind: 'LIQUIDATION_FILL'; book: number; owner: Address; portfolioId: bigint; size: bigint }
  | { kind: 'FUND_FILL'; owner: Address; portfolioId: bigint; seriesId: Hex; isBuy: boolean; size: bigint; price: bigint }
  | { kind: 'RFQ_FILL'; quote: SignedQuote; fill: SignedFill; makerFee: bigint; takerFee: bigint }
  | { kind: 'MMM_NONCE'; mmm: Address; nonce: bigint }
  | { kind: 'NONCE_FLOOR'; owner: Address; floor: bigint }
  | { kind: 'DEPOSIT' | 'DEPOSIT_REFUND'; depositId: bigint }
  | { kind: 'MINT' | 'LIQUIDATION_FEE'; owner: Address; portfolioId: bigint; amount: bigint }
  | { kind: 'WITHDRAW'; owner: Address; portfolioId: bigint; amount: bigint; withdrawalId: bigint }
  | { kind: 'TRANSFER'; owner: Address; fromPortfolioId: bigint; toPortfolioId: bigint; amount: bigint }
  | { kind: 'DEFICIT'; owner: Address; portfolioId: bigint; fundPaid: bigint; badDebt: bigint }
  | { kind: 'REBATE'; referrer: Address; amount: bigint }
  | { kind: 'FORCED_WITHDRAW'; requestId: bigint; paid: bigint }
  | { kind: 'PAIR'; pairId: Hex; tickDecimals: number }
  | { kind: 'SERIES'; pairId: Hex; strike: bigint; expiry: number; isCall: boolean }
  | { kind: 'MMM'; account: Address; isMmm: boolean }
  | ({ kind: 'SETTLEMENT_PRICE'; pairId: Hex; expiry: number; price: bigint } & Sig)
  | { kind: 'SERIES_SETTLED'; seriesId: Hex }
  | { kind: 'SETTLE_POSITION'; owner: Address; portfolioId: bigint; seriesId: Hex }
);

/** The items of a batch; throws a RangeError naming the item for an unknown kind or a cut item (the contract's BadItem). */
export function decodeItems(items: Uint8Array): DecodedItem[] {
  const out: DecodedItem[] = [];
  let p = 0;
  let orders = 0;
  while (p < items.length) {
    const index = out.length;
    const name = KIND_NAME.get(items[p]!);
    if (name === undefined) throw new RangeError(`item ${index}: unknown kind 0x${items[p]!.toString(16).padStart(2, '0')}`);
    const len = ITEM_LENGTH[name];
    if (p + len > items.length) throw new RangeError(`item ${index}: ${name} cut at byte ${items.length - p} of ${len}`);
    const r = new Reader(items, p);
    const head = { index, offset: p };
    out.push(decodeOne(name, r, head, () => orders++));
    p += len;
  }
  return out;
}

class Reader {
  constructor(private readonly b: Uint8Array, private at: number) {
    this.at++;
  }
  hex(n: number): Hex {
    const h = hexOf(this.b, this.at, this.at + n);
    this.at += n;
    return h;
  }
  uint(n: number): bigint {
    const v = readUint(this.b, this.at, n);
    this.at += n;
    return v;
  }
  int(n: number): bigint {
    const v = readInt(this.b, this.at, n);
    this.at += n;
    return v;
  }
  small(n: number): number {
    return Number(this.uint(n));
  }
  bool(): boolean {
    return this.b[this.at++] === 1;
  }
  address(): Address {
    return this.hex(20);
  }
  sig(): Hex {
    return this.hex(65);
  }
}

function decodeOne(kind: ItemKindName, r: Reader, head: { index: number; offset: number }, nextOrder: () => number): DecodedItem {
  switch (kind) {
    case 'ORDER': {
      const order = nextOrder();
      return { ...head, kind, order, owner: r.address(), seriesId: r.hex(32), portfolioId: r.uint(8), isBuy: r.bool(), tick: r.small(4), size: r.uint(16), expiry: r.small(4), nonce: r.uint(32), deadline: r.uint(32), signature: r.sig() };
    }
    case 'FILL':
      return { ...head, kind, maker: r.small(2), taker: r.small(2), size: r.uint(16), makerFee: r.int(16), takerFee: r.int(16) };
    case 'LIQUIDATION_FILL':
      return { ...head, kind, book: r.small(2), owner: r.address(), portfolioId: r.uint(8), size: r.uint(16) };
    case 'FUND_FILL':
      return { ...head, kind, owner: r.address(), portfolioId: r.uint(8), seriesId: r.hex(32), isBuy: r.bool(), size: r.uint(16), price: r.uint(16) };
    case 'RFQ_FILL': {
      const quote: SignedQuote = {
        mmm: r.address(), taker: r.address(), seriesId: r.hex(32), takerIsBuying: r.bool(), price: r.uint(32), size: r.uint(32), nonce: r.uint(32),
        quoteExpiry: r.uint(32), pairId: r.hex(32), strike: r.uint(32), optionExpiry: r.uint(32), isCall: r.bool(), signature: r.sig(),
      };
      const fill: SignedFill = { taker: r.address(), portfolioId: r.uint(32), fillSize: r.uint(32), nonce: r.uint(32), deadline: r.uint(32), signature: r.sig() };
      return { ...head, kind, quote, fill, makerFee: r.int(16), takerFee: r.int(16) };
    }
    case 'MMM_NONCE':
      return { ...head, kind, mmm: r.address(), nonce: r.uint(32) };
    case 'NONCE_FLOOR':
      return { ...head, kind, owner: r.address(), floor: r.uint(32) };
    case 'DEPOSIT':
    case 'DEPOSIT_REFUND':
      return { ...head, kind, depositId: r.uint(8) };
    case 'MINT':
    case 'LIQUIDATION_FEE':
      return { ...head, kind, owner: r.address(), portfolioId: r.uint(8), amount: r.uint(16) };
    case 'WITHDRAW':
      return { ...head, kind, owner: r.address(), portfolioId: r.uint(8), amount: r.uint(16), withdrawalId: r.uint(8) };
    case 'TRANSFER':
      return { ...head, kind, owner: r.address(), fromPortfolioId: r.uint(8), toPortfolioId: r.uint(8), amount: r.uint(16) };
    case 'DEFICIT':
      return { ...head, kind, owner: r.address(), portfolioId: r.uint(8), fundPaid: r.uint(16), badDebt: r.uint(16) };
    case 'REBATE':
      return { ...head, kind, referrer: r.address(), amount: r.uint(16) };
    case 'FORCED_WITHDRAW':
      return { ...head, kind, requestId: r.uint(8), paid: r.uint(16) };
    case 'PAIR':
      return { ...head, kind, pairId: r.hex(32), tickDecimals: r.small(1) };
    case 'SERIES':
      return { ...head, kind, pairId: r.hex(32), strike: r.uint(32), expiry: r.small(8), isCall: r.bool() };
    case 'MMM':
      return { ...head, kind, account: r.address(), isMmm: r.bool() };
    case 'SETTLEMENT_PRICE':
      return { ...head, kind, pairId: r.hex(32), expiry: r.small(8), price: r.uint(32), signature: r.sig() };
    case 'SERIES_SETTLED':
      return { ...head, kind, seriesId: r.hex(32) };
    case 'SETTLE_POSITION':
      return { ...head, kind, owner: r.address(), portfolioId: r.uint(8), seriesId: r.hex(32) };
  }
}
